import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// The result limit scales the whole answer by one factor, as imgproxy's
/// `MAX_RESULT_DIMENSION` does (its `limitScale`): an enlargement past it
/// keeps the source's shape, whichever side was asked; with extend, the
/// canvas (the asked side, and the image's own where 0 is asked) is what
/// keeps its shape, as in imgproxy.
@Suite struct ResultLimitShapeTests {
    @Test func anEnlargementPastTheLimitKeepsItsShape() async throws {
        try await TestServer.withOrigin(serving: Corpus.photosFolder, { $0.limits.maxResultDimension = 4096 }) { server, origin in
            let source = plainSource(origin.url("/Aqua.jpg"))  // 2560 x 1600
            for (options, width, height) in [("rs:fit:20000:0:1", 4096, 2560), ("rs:fit:0:20000:1", 4096, 2560),
                                             ("rs:fit:9000:9000:1", 4096, 2560), ("rs:fill:20000:0:1", 4096, 2560),
                                             ("w:20000/el:1", 4096, 2560),
                                             // Not enlarged, extended: the 20000 x 1600 canvas scaled by 4096 / 20000.
                                             ("rs:fit:20000:0:0:1", 4096, 328), ("rs:fit:0:20000:0:1", 524, 4096),
                                             ("rs:fit:9000:9000:0:1", 4096, 4096)] {
                let answer = try await server.get("/img/_/\(options)/plain/\(source)@jpg")
                #expect(answer.status == .ok, "\(options): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                guard answer.status == .ok else { continue }
                let size = try ImageSize.of(answer.body)
                #expect(size.width == width && size.height == height, "\(options): \(size)")
            }
        }
    }
}
