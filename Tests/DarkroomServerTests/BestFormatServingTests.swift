import Darkroom
@testable import DarkroomServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `f:best` and `@best` (imgproxy Pro's): the smallest of the formats the
/// client takes, negotiated like `auto`.
@Suite(.offCooperativePool) struct BestFormatServingTests {
    private static func format(_ response: TestResponse) -> ImageFormat? {
        if case .image(let format) = ImageFormat.sniff(Array(buffer: response.body)) { format } else { nil }
    }

    @Test func bestIsTheSmallestTheClientTakes() async throws {
        try await withRouter { client in
            let modern: HTTPFields = [.accept: "image/avif,image/webp,image/*,*/*;q=0.8"]
            for path in ["/img/_/rs:fit:200:200/f:best/plain/local:///photos/Aqua.jpg", "/img/_/rs:fit:200:200/plain/local:///photos/Aqua.jpg@best"] {
                let answer = try await client.execute(uri: path, method: .get, headers: modern)
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
                let sizes = try await [ImageFormat.jpeg, .webp, .avif].asyncMap { format in
                    (format, try await client.execute(uri: "/img/_/rs:fit:200:200/f:\(format.rawValue)/plain/local:///photos/Aqua.jpg", method: .get).body.readableBytes)
                }
                let smallest = try #require(sizes.min { $0.1 < $1.1 })
                #expect(Self.format(answer) == smallest.0 && answer.body.readableBytes == smallest.1, "\(sizes)")
                #expect(answer.headers[.vary]?.contains("Accept") == true)
            }
            // A client that names neither AVIF nor WebP gets JPEG.
            let plain = try await client.execute(uri: "/img/_/rs:fit:200:200/f:best/plain/local:///photos/Aqua.jpg", method: .get,
                                                 headers: [.accept: "image/jpeg,image/png"])
            #expect(Self.format(plain) == .jpeg)
        }
        // The server's default for URLs that name no format.
        try await withRouter({ $0.bestFormatByDefault = true }) { client in
            let answer = try await client.execute(uri: "/img/_/rs:fit:200:200/plain/local:///photos/Aqua.jpg", method: .get,
                                                  headers: [.accept: "image/avif,image/webp"])
            #expect([.avif, .webp].contains(Self.format(answer)), "the smallest of the client's, not the source's JPEG")
            let named = try await client.execute(uri: "/img/_/rs:fit:200:200/f:png/plain/local:///photos/Aqua.jpg", method: .get,
                                                 headers: [.accept: "image/avif,image/webp"])
            #expect(Self.format(named) == .png, "a format named in the URL is kept")
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
