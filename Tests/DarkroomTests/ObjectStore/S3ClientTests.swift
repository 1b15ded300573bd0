@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// The S3 client against a real store: SeaweedFS's S3 gateway on loopback.
struct S3ClientTests {
    static func client(_ store: SeaweedFS, bucket: String = "darkroom", secret: String = SeaweedFS.secretKey) throws -> S3Client {
        var configuration = S3Client.Configuration(endpoint: store.endpoint, bucket: bucket,
                                                   credentials: S3Credentials(accessKeyID: SeaweedFS.accessKey, secretAccessKey: secret))
        // Far past what any call takes on a busy machine: a call that ends
        // in an error here ends for the reason the test gives it.
        configuration.timeout = .seconds(120)
        return try S3Client(configuration: configuration)
    }

    @Test func objectsRoundTripAndErrorsSayWhatTheStoreSaid() async throws {
        let store = try await SeaweedFS.start()
        let client = try Self.client(store)
        do {
            try await store.prepare(client)
            try await client.checkBucket()

            let photo = try Fixtures.data("landscape.jpg")
            try await client.put("results/ab/photo one.jpg", data: photo, contentType: "image/jpeg",
                                 metadata: ["width": "640", "source-etag": S3Signer.encode("\"v1\"", keepSlash: false)])
            let object = try #require(try await client.get("results/ab/photo one.jpg"))
            #expect(object.data == photo)
            #expect(object.contentType == "image/jpeg")
            #expect(object.metadata["width"] == "640")
            #expect(object.metadata["source-etag"]?.removingPercentEncoding == "\"v1\"")
            #expect(try await client.head("results/ab/photo one.jpg")?["width"] == "640")
            #expect(try await client.get("results/ab/none.jpg") == nil)
            #expect(try await client.head("results/ab/none.jpg") == nil)

            // A second PUT replaces the object whole.
            try await client.put("results/ab/photo one.jpg", data: Data("small".utf8))
            #expect(try await client.get("results/ab/photo one.jpg")?.data == Data("small".utf8))

            for name in ["a", "b", "c"] { try await client.put("list/\(name)", data: Data(name.utf8)) }
            try await client.put("other/d", data: Data("d".utf8))
            let listed = try await client.list(prefix: "list/")
            #expect(listed.keys == ["list/a", "list/b", "list/c"])
            #expect(listed.next == nil)

            try await client.delete("list/b")
            #expect(try await client.list(prefix: "list/").keys == ["list/a", "list/c"])
            try await client.delete("list/none")

            // A wrong secret: the store's own words, and what to check.
            let wrong = try Self.client(store, secret: "not-the-secret")
            do {
                _ = try await wrong.get("list/a")
                Issue.record("a wrong secret read an object")
            } catch {
                #expect(error.status == 403)
                #expect(error.code == "SignatureDoesNotMatch")
                #expect(!error.isTransient)
                #expect(error.description.hasPrefix("S3 GET darkroom/list/a: 403 SignatureDoesNotMatch"))
                #expect(error.description.contains("AWS_SECRET_ACCESS_KEY"))
            }
            await wrong.shutdown()

            let missing = try Self.client(store, bucket: "no-such-bucket")
            await #expect(throws: S3Error.self) { try await missing.checkBucket() }
            do { try await missing.checkBucket() } catch { #expect(error.code == "NoSuchBucket") }
            await missing.shutdown()

            // The store gone: a transient error that says the connection
            // was refused (nothing listens), not a wait for the timeout. A
            // client of its own, so that no connection kept from before
            // the stop is what fails (that is "I/O on closed channel").
            let gone = try Self.client(store)
            await store.stop()
            try await cleaningUp({ await gone.shutdown() }) { () async throws in
                do {
                    _ = try await gone.get("list/a")
                    Issue.record("a stopped store answered")
                } catch let error as S3Error {
                    #expect(error.isTransient)
                    #expect(error.status == nil)
                    // Refused; or, while the stopping store's last process
                    // still holds the port, accepted and closed at once.
                    let said = error.description
                    #expect(said.hasPrefix("S3 GET darkroom/list/a: cannot connect to ")
                        || (said.hasPrefix("S3 GET darkroom/list/a: ") && said.hasSuffix("closed the connection")), "\(error)")
                }
            }
        } catch {
            await client.shutdown()
            await store.stop()
            throw error
        }
        await client.shutdown()
        await store.stop()
    }
}

/// The breaker's rules as plain values, with the time given.
struct CircuitBreakerTests {
    @Test func opensAfterTheThresholdAndLetsOneTrialThroughAfterTheCooldown() {
        let breaker = CircuitBreaker(threshold: 3, cooldown: .seconds(10))
        let start = ContinuousClock.now
        #expect(breaker.allow(now: start))
        breaker.failed("one", now: start)
        breaker.failed("two", now: start)
        #expect(breaker.state == .closed)
        #expect(breaker.allow(now: start))
        breaker.failed("three", now: start)
        #expect(breaker.state == .open(reason: "three"))
        #expect(!breaker.allow(now: start + .seconds(9)))
        // After the cooldown: one trial, and only one.
        #expect(breaker.allow(now: start + .seconds(10)))
        #expect(!breaker.allow(now: start + .seconds(10)))
        // The trial fails: open for another cooldown.
        breaker.failed("four", now: start + .seconds(11))
        #expect(!breaker.allow(now: start + .seconds(20)))
        #expect(breaker.allow(now: start + .seconds(21)))
        breaker.succeeded()
        #expect(breaker.state == .closed)
        #expect(breaker.allow(now: start + .seconds(21)))
    }

    @Test func aSuccessResetsTheCount() {
        let breaker = CircuitBreaker(threshold: 2, cooldown: .seconds(1))
        breaker.failed("x")
        breaker.succeeded()
        breaker.failed("y")
        #expect(breaker.state == .closed)
        breaker.trip("down")
        #expect(breaker.state == .open(reason: "down"))
    }
}

/// `s3://` locations as the command line gives them.
struct S3LocationTests {
    @Test func parsesBucketAndPrefix() throws {
        #expect(try S3Location(parsing: "s3://images") == S3Location(bucket: "images", prefix: ""))
        #expect(try S3Location(parsing: "s3://images/cache") == S3Location(bucket: "images", prefix: "cache/"))
        #expect(try S3Location(parsing: "s3://my.images-1/a/b/") == S3Location(bucket: "my.images-1", prefix: "a/b/"))
    }

    @Test func refusesWhatIsNotALocation() {
        for text in ["http://images/x", "s3://", "s3://ab", "s3://Images", "s3://-images", "s3://images/a//b", "s3://images/../x",
                     "s3://" + String(repeating: "a", count: 64), "s3://im_ages"] {
            #expect(throws: DarkroomError.self, "\(text)") { try S3Location(parsing: text) }
        }
    }
}
