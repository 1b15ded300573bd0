import _CryptoExtras
import Crypto
@testable import DarkroomServer
import Foundation
import HTTPTypes
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
            // The answer's name is not the hidden file's.
            let disposition = enc.headers[.contentDisposition] ?? ""
            #expect(!disposition.contains("Aqua") && disposition.contains("image"), "\(disposition)")
        }
        try await withRouter { client in
            let refused = try await client.execute(uri: "/img/_/rs:fit:100:100/enc/\(hidden).jpg", method: .get)
            #expect(refused.status == .notFound && String(buffer: refused.body).contains("source-url-encryption-key"), "\(String(buffer: refused.body))")
        }
    }

    /// Nothing of the hidden URL in any answer: a source missing, one that
    /// is not an image, one refused, and a token that does not decrypt
    /// (right padding or not) all answer one 404 with one sentence, on
    /// images and on /info.
    @Test func everyFailureOfAnEncryptedSourceIsOneAnswerThatShowsNothing() async throws {
        let secrets = ["local:///hidden/customer-4711/passport-scan.png", "local:///photos/../../etc/customer-4711",
                       "ftp://customer-4711.example/passport-scan.png", "not a url customer-4711"]
        var tokens = try secrets.map { try Self.encrypted($0, iv: [UInt8](repeating: 7, count: 16)) }
        // A token cut short, and one whose last block was changed: the
        // padding no longer checks.
        tokens.append(String(tokens[0].dropLast(4)))
        var tampered = Array(Data(base64URLEncoded: tokens[0])!)
        tampered[tampered.count - 17] ^= 1
        tokens.append(Data(tampered).base64URLEncodedString())
        let all = tokens
        try await withRouter({ $0.sourceRules.encryptionKey = Self.key }) { client in
            var answers = Set<String>()
            for token in all {
                for uri in ["/img/_/rs:fit:100:100/enc/\(token).jpg", "/info/_/enc/\(token)"] {
                    let answer = try await client.execute(uri: uri, method: .get)
                    let text = String(buffer: answer.body)
                    let fields = answer.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
                    #expect(!text.contains("customer-4711") && !text.contains("passport") && !fields.contains("customer-4711"), "\(uri): \(text)")
                    answers.insert("\(answer.status.code) \(text)")
                }
            }
            #expect(answers == ["404 the encrypted source could not be had\n"], "\(answers)")
        }
    }

    /// The fallback image stands in for an encrypted source that cannot be
    /// had, as for any other; the status it reports is the one answer's.
    @Test func theFallbackImageStandsInForAnEncryptedSource() async throws {
        let hidden = try Self.encrypted("local:///hidden/customer-4711/passport-scan.png", iv: [UInt8](repeating: 5, count: 16))
        let fallback = try Data(contentsOf: Corpus.photo("Dune.jpg"))
        try await withRouter({ $0.sourceRules.encryptionKey = Self.key; $0.fallbackImage = fallback }) { client in
            let answer = try await client.execute(uri: "/img/_/rs:fill:50:30/enc/\(hidden).png", method: .get)
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            #expect(answer.headers[HTTPField.Name(ImageRoutes.sourceStatus)!] == "404")
            #expect(!(answer.headers[.contentDisposition] ?? "").contains("passport"))
        }
    }
}
