import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// nginx with proxy_cache in front of two `darkroom serve` processes, as
/// docs/deploy.md sets it up for production.
@Suite(.serialized) struct CacheInFrontTests {
    func get(_ client: HTTPClient, _ url: String) async throws -> (status: Int, headers: [String: String], body: Data) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 50 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return (Int(response.status.code), headers, Data(body.readableBytesView))
    }

    /// Requests for image URLs a server has answered, from its /metrics.
    func imageRequests(_ client: HTTPClient, port: Int) async throws -> Int {
        let metrics = String(decoding: try await get(client, "http://127.0.0.1:\(port)/metrics").body, as: UTF8.self)
        return metrics.split(separator: "\n")
            .filter { $0.hasPrefix("hb_requests{") && $0.contains("http_route=\"/img/**\"") }
            .compactMap { Double($0.split(separator: " ").last ?? "") }
            .reduce(0) { $0 + Int($1) }
    }

    @Test func aSecondRequestIsAnNginxHitAndTheServersSawOne() async throws {
        let nginx = URL(fileURLWithPath: "/usr/sbin/nginx")
        try #require(FileManager.default.isExecutableFile(atPath: nginx.path), "nginx is installed by scripts/bootstrap")
        let folder = try Fixtures.temporaryFolder("darkroom-nginx")
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: Corpus.root)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)

        var servers: [ServingProcess] = []
        for i in 0..<2 {
            servers.append(try await ServingProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache\(i)").path,
                                                           "--allow-private-networks"], log: folder.appendingPathComponent("server\(i).log")))
        }
        let ports = servers.map(\.port)

        let front = try LoopbackPort.free()
        let configuration = try String(contentsOf: Corpus.packageRoot.appendingPathComponent("docs/nginx.conf"), encoding: .utf8)
            .replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(front);")
            .replacingOccurrences(of: "server 127.0.0.1:8081;", with: "server 127.0.0.1:\(ports[0]);")
            .replacingOccurrences(of: "server 127.0.0.1:8082;", with: "server 127.0.0.1:\(ports[1]);")
            .replacingOccurrences(of: "/var/cache/nginx/darkroom", with: folder.appendingPathComponent("nginx-cache").path)
        let wrapped = """
        daemon off;
        worker_processes 1;
        pid \(folder.path)/nginx.pid;
        error_log \(folder.path)/nginx-error.log;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(folder.path)/tmp-body;
            proxy_temp_path \(folder.path)/tmp-proxy;
            fastcgi_temp_path \(folder.path)/tmp-fastcgi;
            uwsgi_temp_path \(folder.path)/tmp-uwsgi;
            scgi_temp_path \(folder.path)/tmp-scgi;
        \(configuration)
        }
        """
        let confFile = folder.appendingPathComponent("nginx.conf")
        try wrapped.write(to: confFile, atomically: true, encoding: .utf8)
        let proxy = Process()
        proxy.executableURL = nginx
        proxy.arguments = ["-e", folder.appendingPathComponent("nginx-error.log").path, "-p", folder.path, "-c", confFile.path]
        proxy.standardOutput = FileHandle.nullDevice
        proxy.standardError = FileHandle.nullDevice
        try proxy.run()
        #expect(await eventually(120) { LoopbackPort.isListening(front) }, "nginx listens")

        let url = "http://127.0.0.1:\(front)/img/_/rs:fill:200:150/sepia:0.8/plain/\(origin.url("/photos/LadyBird.jpg").absoluteString)@jpg"
        let first = try await get(client, url)
        let second = try await get(client, url)
        #expect(first.status == 200 && second.status == 200)
        #expect(first.headers["x-cache-status"] == "MISS")
        #expect(second.headers["x-cache-status"] == "HIT")
        #expect(first.body == second.body)
        let seen = try await imageRequests(client, port: ports[0]) + (try await imageRequests(client, port: ports[1]))
        #expect(seen == 1, "the two servers saw one image request between them")
        #expect(origin.requests("/photos/LadyBird.jpg") == 1)

        await DarkroomProcess.stop(proxy, signal: SIGQUIT)
        for server in servers {
            let status = await server.stop(signal: SIGTERM, seconds: 120)
            #expect(status == 0, "SIGTERM shuts the server down gracefully")
        }
        try await client.shutdown()
        await origin.stop()
    }
}
