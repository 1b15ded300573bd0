@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// The signer against AWS's published Signature Version 4 examples for S3
/// (the "Examples: Signature Calculations" of the S3 API reference), and
/// against curl's own implementation on the same request.
struct S3SignerTests {
    static let example = S3Signer(credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                                             secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
    /// 20130524T000000Z
    static let exampleDate = Date(timeIntervalSince1970: 1_369_353_600)
    static let host = "examplebucket.s3.amazonaws.com"

    static func signature(_ headers: [String: String]) -> String {
        String(headers["authorization"]!.split(separator: "Signature=").last!)
    }

    @Test func getObjectWithRange() {
        let signed = Self.example.sign(method: "GET", path: "/test.txt", headers: ["Host": Self.host, "Range": "bytes=0-9"],
                                       payloadHash: S3Signer.emptyPayloadHash, date: Self.exampleDate)
        #expect(signed["authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed["x-amz-date"] == "20130524T000000Z")
    }

    @Test func putObjectWithPayload() {
        let body = Data("Welcome to Amazon S3.".utf8)
        #expect(S3Signer.payloadHash(body) == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let signed = Self.example.sign(method: "PUT", path: "/" + S3Signer.encode("test$file.text", keepSlash: true),
                                       headers: ["Host": Self.host, "Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"],
                                       payloadHash: S3Signer.payloadHash(body), date: Self.exampleDate)
        #expect(Self.signature(signed) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func getBucketLifecycle() {
        let signed = Self.example.sign(method: "GET", path: "/", query: [("lifecycle", "")], headers: ["Host": Self.host],
                                       payloadHash: S3Signer.emptyPayloadHash, date: Self.exampleDate)
        #expect(Self.signature(signed) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test func listObjectsWithQueryInAnyOrder() {
        let signed = Self.example.sign(method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: ["Host": Self.host],
                                       payloadHash: S3Signer.emptyPayloadHash, date: Self.exampleDate)
        #expect(Self.signature(signed) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func encodingKeepsOnlyUnreservedCharacters() {
        #expect(S3Signer.encode("a b/c~d_e.f-g+h=é", keepSlash: true) == "a%20b/c~d_e.f-g%2Bh%3D%C3%A9")
        #expect(S3Signer.encode("a/b", keepSlash: false) == "a%2Fb")
    }

    /// curl signs with its own Signature Version 4 code (`--aws-sigv4`); the
    /// request it sends, signed again here with the same time and headers,
    /// must carry the same Authorization.
    @Test func sameSignatureAsCurl() async throws {
        let origin = try await OriginServer.start(serving: Fixtures.folder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let payload = S3Signer.emptyPayloadHash
            let (status, _) = try await runTool("/usr/bin/curl", ["-s", "-o", "/dev/null", "--aws-sigv4", "aws:amz:eu-west-1:s3", "--user", "AKIDCURL:curl/secret+key",
                                                                 "-H", "x-amz-content-sha256: \(payload)", origin.url("/bucket/some%20key/photo.jpg").absoluteString])
            #expect(status == 0)
            let sent = try #require(origin.lastHeaders("/bucket/some%20key/photo.jpg"))
            let date = try #require(sent["x-amz-date"])
            let signer = S3Signer(credentials: S3Credentials(accessKeyID: "AKIDCURL", secretAccessKey: "curl/secret+key", region: "eu-west-1"))
            let signed = signer.sign(method: "GET", path: "/bucket/some%20key/photo.jpg", headers: ["host": sent["host"]!],
                                     payloadHash: payload, date: try #require(Self.parse(amzDate: date)))
            // curl puts a space after each comma; the fields are what count.
            let fields = { (text: String) in text.replacingOccurrences(of: ", ", with: ",") }
            #expect(fields(try #require(signed["authorization"])) == fields(try #require(sent["authorization"])))
        }
    }

    static func parse(amzDate text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: text)
    }
}

/// Credentials found as S3 tools find them: the environment, else the
/// shared credentials file's profile, the region from the config file.
struct S3CredentialsTests {
    @Test func theSharedFilesProfileStandsInForTheEnvironment() throws {
        let folder = try Fixtures.temporaryFolder("darkroom-aws")
        defer { try? FileManager.default.removeItem(at: folder) }
        let credentials = folder.appendingPathComponent("credentials"), config = folder.appendingPathComponent("config")
        try Data("""
        [default]
        aws_access_key_id = DEFAULTKEY
        aws_secret_access_key = defaultsecret
        # a comment
        [photos]
        aws_access_key_id=PHOTOSKEY
        aws_secret_access_key=photossecret
        aws_session_token = TOKEN
        """.utf8).write(to: credentials)
        try Data("[default]\nregion = eu-north-1\n[profile photos]\nregion = eu-west-1\n".utf8).write(to: config)
        let files = ["AWS_SHARED_CREDENTIALS_FILE": credentials.path, "AWS_CONFIG_FILE": config.path, "HOME": folder.path]
        let photos = try S3Credentials.fromEnvironment(files.merging(["AWS_PROFILE": "photos"]) { $1 })
        #expect(photos.accessKeyID == "PHOTOSKEY" && photos.secretAccessKey == "photossecret" && photos.sessionToken == "TOKEN")
        #expect(photos.region == "eu-west-1")
        let standard = try S3Credentials.fromEnvironment(files)
        #expect(standard.accessKeyID == "DEFAULTKEY" && standard.region == "eu-north-1" && standard.sessionToken == nil)
        // The environment first, its region over the file's.
        let env = try S3Credentials.fromEnvironment(files.merging(["AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "s",
                                                                    "AWS_REGION": "us-west-2"]) { $1 })
        #expect(env.accessKeyID == "ENVKEY" && env.region == "us-west-2")
        #expect(throws: DarkroomError.self) { try S3Credentials.fromEnvironment(files.merging(["AWS_PROFILE": "none"]) { $1 }) }
        #expect(throws: DarkroomError.self) { try S3Credentials.fromEnvironment(["HOME": folder.appendingPathComponent("nobody").path]) }
    }

    /// A temporary credential's token is sent and signed.
    @Test func aSessionTokenIsSigned() {
        var credentials = S3SignerTests.example.credentials
        credentials.sessionToken = "TOKEN"
        let signed = S3Signer(credentials: credentials).sign(method: "GET", path: "/test.txt", headers: ["Host": S3SignerTests.host],
                                                              payloadHash: S3Signer.emptyPayloadHash, date: S3SignerTests.exampleDate)
        #expect(signed["x-amz-security-token"] == "TOKEN")
        #expect(signed["authorization"]?.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token") == true)
    }
}
