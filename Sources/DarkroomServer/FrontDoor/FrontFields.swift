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
    /// `Server`'s value (`--server-name`).
    let serverName: String
    /// Made once; empty without `--allow-origin`.
    let cors: [(String, String)]
    let dates = HTTPDate()

    init(allowOrigin: String?, serverName: String) {
        self.serverName = serverName
        cors = allowOrigin.map { [("Access-Control-Allow-Origin", $0), ("Access-Control-Allow-Methods", "GET, OPTIONS")] } ?? []
    }

    /// The fields the same on every answer of its kind: `Server`, and the
    /// CORS fields on an image URL's. A URL's kept hit head (``HitHead``)
    /// holds them, so that a hit adds only ``addPerAnswer(to:requestID:)``'s.
    func addLasting(to headers: inout HTTPHeaders, image: Bool) {
        headers.add(name: "Server", value: serverName)
        if image { for (name, value) in cors { headers.add(name: name, value: value) } }
    }

    /// The fields made for each answer: `Date` and the request's id.
    func addPerAnswer(to headers: inout HTTPHeaders, requestID: String?) {
        headers.add(name: "Date", value: dates.now)
        if let requestID { headers.add(name: RequestID.header, value: requestID) }
    }

    /// Every field, on an answer written outside Hummingbird, in NIO's types.
    func add(to headers: inout HTTPHeaders, requestID: String?, image: Bool) {
        addPerAnswer(to: &headers, requestID: requestID)
        addLasting(to: &headers, image: image)
    }

    /// A router's answer: Hummingbird adds `Date` and `Server` as it writes it.
    func add(to headers: inout HTTPFields, requestID: String, image: Bool) {
        headers[RequestID.field] = requestID
        if image {
            for (name, value) in cors {
                if let name = HTTPField.Name(name) { headers[name] = value }
            }
        }
    }
}
