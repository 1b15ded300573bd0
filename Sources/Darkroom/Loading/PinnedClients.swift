import AsyncHTTPClient
import Synchronization
import DarkroomImaging

/// HTTP clients that each connect one host name to one address, for HTTPS
/// sources: the address the policy checked cannot go into the URL, since
/// TLS sends the name (SNI) and checks the certificate against it, so each
/// client's DNS override maps the name to the address. A client is kept
/// for the next fetch from the same name and address (its connections
/// stay open); the least recently used go past `limit`.
final class PinnedClients: Sendable {
    private struct Key: Hashable {
        var host: String
        var address: IPAddress
    }

    private struct State {
        var clients: [Key: HTTPClient] = [:]
        var order: [Key] = []
    }

    private let limit: Int
    /// How long a client let go may still have a request in flight.
    private let grace: Duration
    private let make: @Sendable (_ dnsOverride: [String: String]) -> HTTPClient
    private let state = Locked(State())

    init(limit: Int = 32, grace: Duration, make: @escaping @Sendable (_ dnsOverride: [String: String]) -> HTTPClient) {
        self.limit = limit
        self.grace = grace
        self.make = make
    }

    /// The client that connects `host` to `address`.
    func client(host: String, address: IPAddress) -> HTTPClient {
        let key = Key(host: host, address: address)
        let (client, evicted) = state.withLock { state -> (HTTPClient, HTTPClient?) in
            state.order.removeAll { $0 == key }
            state.order.append(key)
            if let known = state.clients[key] { return (known, nil) }
            let client = make([host: address.description])
            state.clients[key] = client
            guard state.order.count > limit else { return (client, nil) }
            return (client, state.clients.removeValue(forKey: state.order.removeFirst()))
        }
        if let evicted {
            // Shut down once any fetch still on it has passed its deadline.
            Task { [grace] in
                try? await Task.sleep(for: grace)
                try? await evicted.shutdown()
            }
        }
        return client
    }

    func shutdown() async {
        let clients = state.withLock { state in
            defer { state = State() }
            return Array(state.clients.values)
        }
        for client in clients {
            try? await client.shutdown()
        }
    }

    /// For a loader released without shutdown: each client shuts itself
    /// down in the background.
    func shutdownInBackground() {
        let clients = state.withLock { state in
            defer { state = State() }
            return Array(state.clients.values)
        }
        for client in clients {
            client.shutdown { _ in }
        }
    }
}
