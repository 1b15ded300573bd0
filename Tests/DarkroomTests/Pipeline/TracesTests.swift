@testable import Darkroom
import Foundation
import Testing

/// What a span may show of a source's URL: never its credentials.
@Suite struct TracesTests {
    @Test func aSourcesCredentialsStayOutOfItsSpans() throws {
        let url = try #require(URL(string: "https://reader:s3cret@images.example/a%20b.jpg?X-Amz-Signature=abc123&w=1&sig=zz"))
        #expect(Traces.redacted(url) == "https://images.example/a%20b.jpg?X-Amz-Signature=REDACTED&w=1&sig=REDACTED")
        let plain = try #require(URL(string: "http://127.0.0.1:8080/photos/Aqua.jpg?v=2"))
        #expect(Traces.redacted(plain) == plain.absoluteString, "nothing else changes")
    }
}
