import _CryptoExtras
import Crypto
@testable import DarkroomServer
import Foundation
import HummingbirdTesting
import Testing
import TestSupport

/// imgproxy Pro's `/enc/` sources, served: the URL hidden in the path is
/// the one fetched, and without the key nothing is.
@Suite(.offCooperativePool) struct EncryptedSourceServingTests {
    static let key = [UInt8](0..<32)

    /// `url` as imgproxy Pro encrypts it: AES-CBC under the key, the IV in
    /// front, unpadded base64url.
    static func encrypted(_ url: String, iv: [UInt8]) throws -> String {
        let sealed = try AES._CBC.encrypt(Data(url.utf8), using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv))
        return (Data(iv) + sealed).base64URLEncodedString()
    }

    @Test func anEncryptedSourceIsTheImageOfItsURL() async throws {
        let hidden = try Self.encrypted("local:///photos/Aqua.jpg", iv: [UInt8](repeating: 9, count: 16))
        try await withRouter({ $0.sourceRules.encryptionKey = Self.key }) { client in
            let plain = try await client.execute(uri: "/img/_/rs:fit:100:100/plain/local:///photos/Aqua.jpg@jpg", method: .get)
            let enc = try await client.execute(uri: "/img/_/rs:fit:100:100/enc/\(hidden).jpg", method: .get)
            #expect(enc.status == .ok, "\(String(buffer: enc.body))")
            #expect(enc.headers[.contentType] == "image/jpeg" && enc.body == plain.body)
            let info = try await client.execute(uri: "/info/_/enc/\(hidden)", method: .get)
            #expect(info.status == .ok && String(buffer: info.body).contains("\"width\""), "\(String(buffer: info.body))")
        }
        try await withRouter { client in
            let refused = try await client.execute(uri: "/img/_/rs:fit:100:100/enc/\(hidden).jpg", method: .get)
            #expect(refused.status == .notFound && String(buffer: refused.body).contains("source-url-encryption-key"), "\(String(buffer: refused.body))")
        }
    }
}
