import Darkroom
@testable import DarkroomServer
import Foundation
import Hummingbird
import HummingbirdTesting
import DarkroomImaging
import Testing
import TestSupport

/// PDF sources through the server: a page by `pg`, refused without `--pdf`.
@Suite(.offCooperativePool) struct PDFServingTests {
    @Test func aPageIsServedOnlyWhereTurnedOn() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-pdf")
        defer { try? FileManager.default.removeItem(at: folder) }
        try TestPDF.document([.filled(1, 0, 0), .filled(0, 0, 1, width: 100, height: 200)]).write(to: folder.appendingPathComponent("two.pdf"))
        try await withRouter({ $0.localRoot = folder }) { client in
            let refused = try await client.execute(uri: "/img/_/rs:fit:100:100/plain/local:///two.pdf", method: .get)
            #expect(refused.status.code == 422 || refused.status.code == 415, "\(refused.status)")
            #expect(String(buffer: refused.body).contains("--pdf"))
        }
        try await withRouter({
            $0.localRoot = folder
            $0.limits.pdfPages = PDFPages(command: [DarkroomProcess.binary.path, "render-pdf-page"])
        }) { client in
            let second = try await client.execute(uri: "/img/_/pg:1/rs:fit:100:100/plain/local:///two.pdf", method: .get)
            #expect(second.status == .ok, "\(String(buffer: second.body))")
            #expect(second.headers[.contentType] == "image/png")
            #expect(try ImageSize.of(Data(buffer: second.body)) == (50, 100))
            let past = try await client.execute(uri: "/img/_/pg:7/plain/local:///two.pdf", method: .get)
            #expect(past.status.code >= 400 && String(buffer: past.body).contains("2 pages"), "\(String(buffer: past.body))")
            // /info describes the page asked, drawn at 72 pixels an inch.
            let info = try await client.execute(uri: "/info/_/pg:1/plain/local:///two.pdf", method: .get)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: info.body)) as? [String: Any], "\(String(buffer: info.body))")
            #expect(json["format"] as? String == "pdf" && json["width"] as? Int == 100 && json["height"] as? Int == 200, "\(json)")
        }
    }
}

/// Video sources through the server: `vts` and `vtk`, refused without the flag.
@Suite(.offCooperativePool) struct VideoServingTests {
    @Test func aFrameIsServedOnlyWhereTurnedOn() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-video")
        defer { try? FileManager.default.removeItem(at: folder) }
        try TestVideo.threeColours().write(to: folder.appendingPathComponent("colours.mp4"))
        try await withRouter({ $0.localRoot = folder }) { client in
            let refused = try await client.execute(uri: "/img/_/rs:fit:100:100/plain/local:///colours.mp4", method: .get)
            #expect(refused.status.code == 422 && String(buffer: refused.body).contains("--video-thumbnails"), "\(String(buffer: refused.body))")
        }
        try await withRouter({
            $0.localRoot = folder
            $0.limits.videoThumbnails = VideoThumbnails(command: [DarkroomProcess.binary.path, "render-video-frame"])
        }) { client in
            for (path, blue) in [("vts:1.5", true), ("vts:2.5", false), ("vts:2.5/vtk:1", false)] {
                let answer = try await client.execute(uri: "/img/_/\(path)/rs:fit:80:60/f:png/plain/local:///colours.mp4", method: .get)
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
                let pixel = try RawPixels.decode([UInt8](Data(buffer: answer.body)), loader: .png).pixel(x: 40, y: 30)
                #expect((pixel[2] > 200) == blue, "\(path): \(pixel)")
            }
            let info = try await client.execute(uri: "/info/_/plain/local:///colours.mp4", method: .get)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: info.body)) as? [String: Any], "\(String(buffer: info.body))")
            #expect(json["format"] as? String == "video" && json["width"] as? Int == 160, "\(json)")
            // Pro's video_meta and video_streams, on by default.
            let tags = try #require(json["video_meta"] as? [String: String], "\(json)")
            #expect(tags["major_brand"] == "isom", "\(tags)")
            let streams = try #require(json["video_streams"] as? [[String: Any]])
            #expect(streams.count == 1 && streams[0]["type"] as? String == "video" && streams[0]["codec"] as? String == "h264", "\(streams)")
            #expect((streams[0]["fps"] as? Double) == 10 && abs((streams[0]["duration"] as? Double ?? 0) - 3) < 0.2, "\(streams)")
            let without = try await client.execute(uri: "/info/_/vm:0/plain/local:///colours.mp4", method: .get)
            #expect(!String(buffer: without.body).contains("video_meta"))
            // /info describes the frame vts and vtk name, as images use.
            for (path, blue) in [("vts:1.5", true), ("vts:2.5", false), ("vts:2.5/vtk:1", false)] {
                let described = try await client.execute(uri: "/info/_/avg:1/\(path)/plain/local:///colours.mp4", method: .get)
                let body = try #require(try JSONSerialization.jsonObject(with: Data(buffer: described.body)) as? [String: Any], "\(String(buffer: described.body))")
                let average = try #require(body["average"] as? [String: Any], "\(body)")
                #expect(((average["B"] as? Int ?? 0) > 200) == blue, "\(path): \(average)")
            }
        }
    }

    /// `vtt` and `vta` by imgproxy's grammar: a sprite and an animation
    /// through the URL, step 0 for one frame, bad values refused.
    @Test func spritesAndAnimationsByImgproxysGrammar() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-video")
        defer { try? FileManager.default.removeItem(at: folder) }
        try TestVideo.threeColours().write(to: folder.appendingPathComponent("colours.mp4"))
        try await withRouter({
            $0.localRoot = folder
            $0.limits.videoThumbnails = VideoThumbnails(command: [DarkroomProcess.binary.path, "render-video-frame"])
        }) { client in
            let sprite = try await client.execute(uri: "/img/_/vts:0.5/vtt:1:3:1:80:60/f:png/plain/local:///colours.mp4", method: .get)
            #expect(sprite.status == .ok, "\(String(buffer: sprite.body))")
            let sheet = try RawPixels.decode([UInt8](Data(buffer: sprite.body)), loader: .png)
            #expect(sheet.width == 240 && sheet.height == 60)
            // Red, blue, green: each cell's strongest channel.
            #expect([40, 120, 200].map { x in sheet.pixel(x: x, y: 30).indices.max { sheet.pixel(x: x, y: 30)[$0] < sheet.pixel(x: x, y: 30)[$1] } } == [0, 2, 1])
            // The long name, with extend, trim, fill and a focus point.
            let long = try await client.execute(uri: "/img/_/video_thumbnail_tile:-1:2:2:50:50:1:0:1:0:0.5/f:png/plain/local:///colours.mp4", method: .get)
            #expect(long.status == .ok, "\(String(buffer: long.body))")
            let cells = try RawPixels.decode([UInt8](Data(buffer: long.body)), loader: .png)
            #expect(cells.width == 100 && cells.height == 100)
            let animation = try await client.execute(uri: "/img/_/vta:1:200:3:80:60/f:gif/plain/local:///colours.mp4", method: .get)
            #expect(animation.status == .ok && animation.headers[.contentType] == "image/gif", "\(String(buffer: animation.body))")
            let frames = try withRawBytes(of: [UInt8](Data(buffer: animation.body))) { raw throws(VipsError) in
                let image = try VImage.load(raw, loader: .gif)
                return (image.pageCount, image.frameDelays)
            }
            #expect(frames.0 == 3 && frames.1 == [200, 200, 200], "\(frames)")
            // Step 0 (imgproxy's default): one frame, as without the option.
            let one = try await client.execute(uri: "/img/_/vtt:0:3:1:80:60/f:png/plain/local:///colours.mp4", method: .get)
            #expect(one.status == .ok)
            let oneFrame = try RawPixels.decode([UInt8](Data(buffer: one.body)), loader: .png)
            #expect(oneFrame.width == 160)
            for bad in ["vtt:1:0:1:80:60", "vtt:1:3:1", "vta:1:-5:3:80:60", "vta:1:100:5000:10:10", "vtt:1:2:2:80:60:1:0:1:2:0"] {
                let refused = try await client.execute(uri: "/img/_/\(bad)/f:png/plain/local:///colours.mp4", method: .get)
                #expect((400...499).contains(Int(refused.status.code)), "\(bad): \(String(buffer: refused.body))")
            }
        }
    }
}
