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
        let known = state.withLock { state -> HTTPClient? in
            guard let known = state.clients[key] else { return nil }
            state.order.removeAll { $0 == key }
            state.order.append(key)
            return known
        }
        if let known { return known }
        // Made outside the lock (a client starts its own machinery); if
        // another fetch made one for the same key meanwhile, that one is
        // kept and this one let go.
        let made = make([host: address.description])
        let (client, spare) = state.withLock { state -> (HTTPClient, HTTPClient?) in
            if let known = state.clients[key] { return (known, made) }
            state.clients[key] = made
            state.order.append(key)
            guard state.order.count > limit else { return (made, nil) }
            return (made, state.clients.removeValue(forKey: state.order.removeFirst()))
        }
        if let spare {
            // Shut down once any fetch still on it has passed its deadline.
            Task { [grace] in
                try? await Task.sleep(for: grace)
                try? await spare.shutdown()
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
