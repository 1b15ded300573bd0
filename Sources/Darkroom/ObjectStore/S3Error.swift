import Foundation

/// A failed S3 call, said the way an operator needs it: which call, on
/// which object, and what the store answered (its error code and message)
/// or why it could not be reached.
public struct S3Error: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var resource: String
    /// The store's HTTP status; nil when no answer came.
    public var status: Int?
    /// The store's error code, such as `SignatureDoesNotMatch`.
    public var code: String?
    public var message: String

    /// Whether trying again later could work: no answer, a timeout, or a
    /// 5xx. A refused signature or a missing bucket will not mend itself.
    public var isTransient: Bool {
        guard let status else { return true }
        return status >= 500 || status == 429
    }

    public var description: String {
        var text = "S3 \(operation) \(resource): "
        if let status { text += "\(status)" + (code.map { " \($0)" } ?? "") + (message.isEmpty ? "" : " (\(message))") } else { text += message }
        if code == "SignatureDoesNotMatch" || code == "InvalidAccessKeyId" {
            text += "; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        }
        return text
    }

    /// The `<Code>` and `<Message>` of an S3 error body.
    static func fields(ofErrorBody body: Data) -> (code: String?, message: String?) {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        return (XMLText.first("Code", in: text), XMLText.first("Message", in: text))
    }
}

/// The few fields Darkroom reads from S3's XML answers, found by their
/// tags: the answers are flat and generated, and no XML parser is needed.
enum XMLText {
    static func first(_ tag: String, in text: String) -> String? {
        all(tag, in: text).first
    }

    static func all(_ tag: String, in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(tag)>"), let close = rest.range(of: "</\(tag)>", range: open.upperBound..<rest.endIndex) {
            found.append(unescape(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return found
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
