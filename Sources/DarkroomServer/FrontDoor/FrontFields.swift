import HTTPTypes
import NIOHTTP1

/// The header fields the front door puts on answers beside each answer's
/// own: `Date`, `Server`, the request's `X-Request-ID`, and on image URLs'
/// answers (errors too: a page's script reads the status only with them)
/// the CORS fields of `--allow-origin`. Listed here once, for every path an
/// answer leaves by: the router's (``FrontFieldsMiddleware``, with
/// Hummingbird writing `Date` and `Server`, as it does for every answer it
/// writes, from the same name), a memory-cache hit answered on the event
/// loop (``CachedImageHandler``) and a request the front door refuses
/// itself (``RequestPartsWatcher``).
struct FrontFields: Sendable {
    static let serverName = "darkroom"

    /// Made once; empty without `--allow-origin`.
    let cors: [(String, String)]
    let dates = HTTPDate()

    init(allowOrigin: String?) {
        cors = allowOrigin.map { [("Access-Control-Allow-Origin", $0), ("Access-Control-Allow-Methods", "GET, OPTIONS")] } ?? []
    }

    /// Each field for an answer, in order; `Date` and `Server` only where
    /// Hummingbird does not write them (`byHummingbird` false).
    private func each(requestID: String?, image: Bool, byHummingbird: Bool, _ body: (String, String) -> Void) {
        if !byHummingbird {
            body("Date", dates.now)
            body("Server", Self.serverName)
        }
        if let requestID { body(RequestID.header, requestID) }
        if image { for (name, value) in cors { body(name, value) } }
    }

    /// An answer written outside Hummingbird, in NIO's types.
    func add(to headers: inout HTTPHeaders, requestID: String?, image: Bool) {
        each(requestID: requestID, image: image, byHummingbird: false) { headers.add(name: $0, value: $1) }
    }

    /// A router's answer; Hummingbird adds `Date` and `Server` as it writes it.
    func add(to headers: inout HTTPFields, requestID: String, image: Bool) {
        each(requestID: requestID, image: image, byHummingbird: true) { name, value in
            if let name = HTTPField.Name(name) { headers[name] = value }
        }
    }
}
