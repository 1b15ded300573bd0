@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite struct DataLoaderTests {
    func withLoader(_ configure: (inout DataLoader.Configuration) -> Void = { _ in },
                    _ body: (DataLoader, OriginServer) async throws -> Void) async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        var configuration = DataLoader.Configuration()
        configuration.retryDelay = .milliseconds(10)
        configure(&configuration)
        let loader = DataLoader(configuration: configuration)
        do {
            try await body(loader, origin)
        } catch {
            try? await loader.shutdown()
            await origin.stop()
            throw error
        }
        try await loader.shutdown()
        await origin.stop()
    }

    func failure(_ loader: DataLoader, _ url: URL) async -> DarkroomError? {
        do {
            _ = try await loader.load(DataRequest(url: url)) { _, _ in }
            return nil
        } catch {
            return error
        }
    }

    @Test func fetchesAnImageWithItsValidators() async throws {
        try await withLoader { loader, origin in
            let response = try await loader.load(DataRequest(url: origin.url("/photos/Aqua.jpg"))) { _, _ in }
            guard case .fetched(let source) = response else { Issue.record("no body"); return }
            #expect(source.format == .jpeg)
            #expect(source.data == (try Corpus.data("Aqua.jpg")))
            #expect(source.etag != nil)
            // The same ETag back: 304.
            let again = try await loader.load(DataRequest(url: origin.url("/photos/Aqua.jpg"), etag: source.etag)) { _, _ in }
            #expect(again == .notModified)
        }
    }

    @Test func httpsConnectsToTheCheckedAddressAndTLSChecksTheName() async throws {
        // photos.rebind.test resolves nowhere but in the policy: a fetch that
        // succeeds connected to the address the policy checked, not to
        // whatever DNS would say at connect time; and TLS checked the
        // certificate against the name.
        let certificate = try await TestCertificate.make(for: "photos.rebind.test")
        let origin = try await OriginServer.start(serving: Corpus.root, certificate: certificate)
        var configuration = DataLoader.Configuration()
        var policy = SourcePolicy(allowPrivateNetworks: true)
        policy.resolvedHosts = ["photos.rebind.test": IPAddress("127.0.0.1")!, "other.rebind.test": IPAddress("127.0.0.1")!]
        configuration.policy = policy
        configuration.retries = 0
        // Not a test of timeouts: a handshake with an origin in this busy
        // process may take seconds.
        configuration.connectTimeout = .seconds(60)
        configuration.readTimeout = .seconds(60)
        configuration.totalTimeout = .seconds(120)
        configuration.trustedCertificateFiles = [certificate.certificate.path]
        let loader = DataLoader(configuration: configuration)
        var untrustingConfiguration = configuration
        untrustingConfiguration.trustedCertificateFiles = []
        let untrusting = DataLoader(configuration: untrustingConfiguration)

        let url = URL(string: "https://photos.rebind.test:\(origin.port)/photos/Aqua.jpg")!
        func load() async -> Result<DataResponse, any Error> {
            do { return .success(try await loader.load(DataRequest(url: url)) { _, _ in }) } catch { return .failure(error) }
        }
        let first = await load()
        let second = await load()
        // The certificate is checked: not trusted, or not for this name.
        let untrusted = await failure(untrusting, url)
        let wrongName = await failure(loader, URL(string: "https://other.rebind.test:\(origin.port)/photos/Aqua.jpg")!)
        try await loader.shutdown()
        try await untrusting.shutdown()
        await origin.stop()

        for response in [first, second] {
            guard case .success(.fetched(let source)) = response else {
                Issue.record("no body: \(response)")
                continue
            }
            #expect(source.data == (try Corpus.data("Aqua.jpg")))
        }
        #expect(untrusted?.kind == .networkFailure, "\(String(describing: untrusted))")
        #expect(wrongName?.kind == .networkFailure, "\(String(describing: wrongName))")
        #expect(origin.requests("/photos/Aqua.jpg") == 2)
    }

    @Test func plainHTTPConnectsToTheCheckedAddressToo() async throws {
        try await withLoader({ configuration in
            var policy = SourcePolicy(allowPrivateNetworks: true)
            policy.resolvedHosts = ["photos.rebind.test": IPAddress("127.0.0.1")!]
            configuration.policy = policy
        }) { loader, origin in
            let response = try await loader.load(DataRequest(url: URL(string: "http://photos.rebind.test:\(origin.port)/photos/Aqua.jpg")!)) { _, _ in }
            guard case .fetched(let source) = response else { Issue.record("no body"); return }
            #expect(source.data == (try Corpus.data("Aqua.jpg")))
        }
    }

    @Test func retriesTransientFailures() async throws {
        try await withLoader { loader, origin in
            origin.set(.failFirst(times: 2, status: 503), for: "/photos/Storm.jpg")
            let response = try await loader.load(DataRequest(url: origin.url("/photos/Storm.jpg"))) { _, _ in }
            guard case .fetched = response else { Issue.record("no body"); return }
            #expect(origin.requests("/photos/Storm.jpg") == 3)
        }
    }

    @Test func givesUpAfterAFewTries() async throws {
        try await withLoader { loader, origin in
            origin.set(.status(502), for: "/photos/Storm.jpg")
            let error = await failure(loader, origin.url("/photos/Storm.jpg"))
            #expect(error?.kind == .httpStatus)
            #expect(error?.statusCode == 502)
            #expect(origin.requests("/photos/Storm.jpg") == 3)
        }
    }

    @Test func doesNotRetryANotFound() async throws {
        try await withLoader { loader, origin in
            let error = await failure(loader, origin.url("/photos/DoesNotExist.jpg"))
            #expect(error?.kind == .httpStatus)
            #expect(error?.statusCode == 404)
            #expect(origin.requests("/photos/DoesNotExist.jpg") == 1)
        }
    }

    @Test func aResetConnectionIsRetriedThenFails() async throws {
        try await withLoader { loader, origin in
            origin.set(.reset, for: "/photos/Wood.jpg")
            let error = await failure(loader, origin.url("/photos/Wood.jpg"))
            #expect(error?.kind == .networkFailure)
            #expect(origin.requests("/photos/Wood.jpg") == 3)
        }
    }

    @Test func aConnectionResetMidBodyIsRetried() async throws {
        try await withLoader { loader, origin in
            origin.set(.resetFirst(times: 1, afterBytes: 20_000), for: "/photos/Wood.jpg")
            let response = try await loader.load(DataRequest(url: origin.url("/photos/Wood.jpg"))) { _, _ in }
            guard case .fetched(let source) = response else { Issue.record("no body: \(response)"); return }
            #expect(source.data == (try Corpus.data("Wood.jpg")))
            #expect(origin.requests("/photos/Wood.jpg") == 2)
        }
    }

    @Test func aTruncatedBodyFails() async throws {
        try await withLoader { loader, origin in
            origin.set(.truncate(10_000), for: "/photos/Wood.jpg")
            let error = await failure(loader, origin.url("/photos/Wood.jpg"))
            #expect(error?.kind == .networkFailure)
        }
    }

    @Test func theBodyDecidesNotTheContentType() async throws {
        try await withLoader { loader, origin in
            origin.set(.contentType("text/html"), for: "/photos/Wood.jpg")
            let response = try await loader.load(DataRequest(url: origin.url("/photos/Wood.jpg"))) { _, _ in }
            guard case .fetched(let source) = response else { Issue.record("no body"); return }
            #expect(source.format == .jpeg)
            let error = await failure(loader, origin.url("/README.md"))
            #expect(error?.kind == .notAnImage)
        }
    }

    @Test func redirectLoopsStop() async throws {
        try await withLoader { loader, origin in
            origin.set(.redirect("/loop-b"), for: "/loop-a")
            origin.set(.redirect("/loop-a"), for: "/loop-b")
            let error = await failure(loader, origin.url("/loop-a"))
            #expect(error?.kind == .tooManyRedirects)
        }
    }

    @Test func aRedirectIsFollowed() async throws {
        try await withLoader { loader, origin in
            origin.set(.redirect("/photos/Aqua.jpg"), for: "/moved")
            let response = try await loader.load(DataRequest(url: origin.url("/moved"))) { _, _ in }
            guard case .fetched(let source) = response else { Issue.record("no body"); return }
            #expect(source.format == .jpeg)
        }
    }

    @Test func everyRedirectHopIsCheckedForSchemeAndAllowList() async throws {
        try await withLoader({ $0.policy = SourcePolicy(allowPrivateNetworks: true) }) { loader, origin in
            origin.set(.redirect("http+unix://%2Ftmp%2Fdarkroom.sock/a.jpg"), for: "/to-socket")
            origin.set(.redirect("file:///etc/passwd"), for: "/to-file")
            for path in ["/to-socket", "/to-file"] {
                let error = await failure(loader, origin.url(path))
                #expect(error?.kind == .forbiddenSource && error?.reason.contains("not an http or https URL") == true, "\(path): \(String(describing: error))")
            }
        }
        try await withLoader({ c in c.policy = nil }) { _, origin in
            // Allowed: /photos/ only. A redirect out of it is refused.
            var configuration = DataLoader.Configuration()
            configuration.policy = SourcePolicy(allowedPrefixes: [origin.url("/photos/").absoluteString], allowPrivateNetworks: true)
            let guarded = DataLoader(configuration: configuration)
            origin.set(.redirect("/README.md"), for: "/photos/moved.jpg")
            let error = await failure(guarded, origin.url("/photos/moved.jpg"))
            try? await guarded.shutdown()
            #expect(error?.kind == .forbiddenSource, "\(String(describing: error))")
        }
    }

    @Test func aSlowDripTimesOut() async throws {
        try await withLoader({ $0.readTimeout = .milliseconds(200); $0.retries = 0 }) { loader, origin in
            origin.set(.drip(chunk: 1000, every: .seconds(1)), for: "/photos/Wood.jpg")
            let error = await failure(loader, origin.url("/photos/Wood.jpg"))
            #expect(error?.kind == .timedOut)
        }
    }

    @Test func aBodyOverTheLimitFails() async throws {
        try await withLoader({ $0.maxBodyBytes = 100_000 }) { loader, origin in
            let error = await failure(loader, origin.url("/photos/Blinds.jpg"))
            #expect(error?.kind == .tooManyBytes)
        }
    }

    /// A body sent with no length (chunked) is stopped as it arrives, once
    /// past the limit: the origin sees the connection closed in the middle
    /// of its answer. The limit is applied as the chunks arrive: with
    /// timeouts no run can reach, the one way the load ends in an error is
    /// the byte limit, and the origin sees its answer abandoned before its
    /// end. The answer is the photo 200 times over (6,800 chunks of 32 KB,
    /// half an hour at one every 300 ms; the fourth passes the limit), so
    /// that no slowness of the loader's can let the origin finish first.
    @Test func aBodyWithNoLengthIsStoppedAsItPassesTheLimit() async throws {
        try await withLoader({
            $0.maxBodyBytes = 100_000
            $0.retries = 0
            $0.readTimeout = .seconds(600)
            $0.totalTimeout = .seconds(900)
        }) { loader, origin in
            origin.set(.chunked(chunk: 32_000, every: .milliseconds(300), times: 200), for: "/photos/Blinds.jpg")
            let error = await failure(loader, origin.url("/photos/Blinds.jpg"))
            #expect(error?.kind == .tooManyBytes, "\(String(describing: error))")
            #expect(await eventuallyAsync(60) { origin.aborted("/photos/Blinds.jpg") == 1 }, "the body was abandoned midway")
        }
    }

    /// A connect that never completes fails at the connect timeout, not
    /// at the read or total timeouts, which no run here can reach.
    @Test func aConnectThatNeverCompletesTimesOut() async throws {
        let stalled = try await onOwnThread { try StalledListener() }
        try await withLoader({ c in
            c.connectTimeout = .milliseconds(300)
            c.readTimeout = .seconds(600)
            c.totalTimeout = .seconds(900)
            c.retries = 0
            c.policy = SourcePolicy(allowPrivateNetworks: true)
        }) { loader, _ in
            let error = await failure(loader, URL(string: "http://127.0.0.1:\(stalled.port)/a.jpg")!)
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            #expect(error?.underlying?.contains("connectTimeout") == true, "\(String(describing: error?.underlying))")
        }
        withExtendedLifetime(stalled) {}
    }

    @Test(arguments: ["ftp://example.com/a.jpg", "file:///etc/passwd", "data:image/png;base64,AAAA"])
    func onlyHTTPAndHTTPS(text: String) async throws {
        try await withLoader { loader, _ in
            let error = await failure(loader, URL(string: text)!)
            #expect(error?.kind == .forbiddenSource)
        }
    }
}
