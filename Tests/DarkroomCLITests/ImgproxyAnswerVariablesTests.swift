@testable import DarkroomCLI
import Darkroom
import DarkroomServer
import Foundation
import Testing
import TestSupport

/// imgproxy's variables for preferred formats, debug and canonical fields,
/// attachments, embedded thumbnails, rewritten watermark and fallback
/// URLs and S3's bucket lists, read as the settings they stand for.
@Suite struct ImgproxyAnswerVariablesTests {
    func configuration(_ environment: [String: String], _ arguments: [String] = []) throws -> ServerConfiguration {
        try ServeFlagsTests().configuration(arguments, environment: environment)
    }

    @Test func theAnswersSettingsAreRead() throws {
        let environment = [
            "IMGPROXY_PREFERRED_FORMATS": "webp, png,gif", "IMGPROXY_ENABLE_DEBUG_HEADERS": "true", "IMGPROXY_SET_CANONICAL_HEADER": "1",
            "IMGPROXY_RETURN_ATTACHMENT": "true", "IMGPROXY_ENFORCE_THUMBNAIL": "true",
            "IMGPROXY_WATERMARK_PREPROCESS_URL": "true", "IMGPROXY_FALLBACK_IMAGE_PREPROCESS_URL": "true",
        ]
        #expect(ImgproxyEnvironment(environment).unhonoured.isEmpty)
        let c = try configuration(environment)
        #expect(c.preferredFormats == [.webp, .png, .gif])
        #expect(c.debugHeaders && c.canonicalHeader && c.returnAttachment && c.enforceThumbnail)
        #expect(c.sourceRules.rewritesWatermarkURLs && c.sourceRules.rewritesFallbackURLs)
        let plain = try configuration([:])
        #expect(plain.preferredFormats == nil && !plain.debugHeaders && !plain.canonicalHeader && !plain.returnAttachment && !plain.enforceThumbnail)
        #expect(!plain.sourceRules.rewritesWatermarkURLs && !plain.sourceRules.rewritesFallbackURLs)
        let flags = try configuration([:], ["--preferred-formats", "jpg,png", "--debug-headers", "--canonical-header", "--return-attachment", "--enforce-thumbnail"])
        #expect(flags.preferredFormats == [.jpeg, .png] && flags.debugHeaders && flags.canonicalHeader && flags.returnAttachment && flags.enforceThumbnail)
        refuses(["IMGPROXY_PREFERRED_FORMATS": "jpeg,svg"], naming: "--preferred-formats: \"svg\" is not a format Darkroom writes")
        refuses(["IMGPROXY_PREFERRED_FORMATS": "jpeg,bogus"], naming: "\"bogus\" is not a format Darkroom writes")
        refuses(["IMGPROXY_PREFERRED_FORMATS": " , "], naming: "--preferred-formats: name at least one format")
        refuses(["IMGPROXY_PREFERRED_FORMATS": "jxl"], naming: "--preferred-formats: jxl needs --jpeg-xl")
        refuses(["IMGPROXY_ENABLE_DEBUG_HEADERS": "maybe"], naming: "DARKROOM_DEBUG_HEADERS maybe: expected true or false")
        refuses(["DARKROOM_WATERMARK_PREPROCESS_URL": "sometimes"], naming: "DARKROOM_WATERMARK_PREPROCESS_URL sometimes: expected true or false")
    }

    /// `IMGPROXY_S3_ALLOWED_BUCKETS` narrows what `IMGPROXY_USE_S3` opens;
    /// `IMGPROXY_S3_DENIED_BUCKETS` closes buckets even under `*`.
    @Test func theS3BucketListsAreImgproxys() throws {
        let s3 = ["IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:8333",
                  "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1"]
        let narrowed = s3.merging(["IMGPROXY_S3_ALLOWED_BUCKETS": "photos,avatars", "IMGPROXY_S3_DENIED_BUCKETS": "avatars"]) { $1 }
        #expect(ImgproxyEnvironment(narrowed).unhonoured.isEmpty)
        let sources = try #require(try configuration(narrowed).s3Sources)
        #expect(sources.allowedBuckets == ["photos", "avatars"] && sources.deniedBuckets == ["avatars"])
        let denied = try #require(try configuration(s3.merging(["IMGPROXY_S3_DENIED_BUCKETS": "secrets"]) { $1 }).s3Sources)
        #expect(denied.allowedBuckets == ["*"] && denied.deniedBuckets == ["secrets"])
        // Without USE_S3, imgproxy reads neither; Darkroom says so.
        let alone = ImgproxyEnvironment(["IMGPROXY_S3_DENIED_BUCKETS": "secrets", "IMGPROXY_S3_ALLOWED_BUCKETS": "photos"])
        #expect(alone.unhonoured.count == 2 && alone.unhonoured.allSatisfy { $0.contains("read only with IMGPROXY_USE_S3") })
        refuses(["DARKROOM_S3_DENIED_BUCKETS": "secrets"], naming: "--s3-denied-buckets needs --s3-sources")
        refuses(s3.merging(["IMGPROXY_S3_DENIED_BUCKETS": "Not_A_Bucket"]) { $1 }, naming: "\"Not_A_Bucket\" is not a bucket name")
    }

    /// A denied bucket is refused before any request is made.
    @Test func aDeniedBucketIsNeverAsked() async throws {
        var settings = S3SourceLoader.Configuration(endpoint: URL(string: "http://127.0.0.1:9")!,
                                                    credentials: S3Credentials(accessKeyID: "a", secretAccessKey: "b", region: "us-east-1"),
                                                    allowedBuckets: ["*"])
        settings.deniedBuckets = ["secrets"]
        struct NoOtherSources: DataLoading {
            func load(_ request: DataRequest, progress: @escaping @Sendable (Int, Int?) -> Void) async throws(DarkroomError) -> DataResponse {
                throw DarkroomError(.invalidURL, "only s3:// here")
            }
        }
        let loader = S3SourceLoader(configuration: settings, fallback: NoOtherSources())
        do {
            _ = try await loader.load(DataRequest(url: URL(string: "s3://secrets/key.jpg")!)) { _, _ in }
            Issue.record("a denied bucket was read")
        } catch {
            #expect(error.kind == .forbiddenSource && error.reason.contains("secrets"), "\(error)")
        }
        await loader.shutdown()
    }
}
