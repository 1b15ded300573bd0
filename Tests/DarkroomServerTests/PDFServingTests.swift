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
}
