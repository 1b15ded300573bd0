import Darkroom
import Foundation

/// What `fn`/`filename` and `att`/`return_attachment` ask for: the
/// Content-Disposition of the answer, its name given the extension of the
/// format the answer turns out in.
struct ContentDisposition: Sendable, Hashable {
    /// Without extension; the answer's format adds one.
    var name: String
    var attachment: Bool

    /// The field's value: an ASCII `filename` for every client, and the
    /// name as it is in `filename*` (RFC 6266) when it is not plain ASCII.
    func value(for format: ImageFormat) -> String {
        let kind = attachment ? "attachment" : "inline"
        // The usual name, plain ASCII, as it is: every hit writes this field.
        if name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            return kind + "; filename=\"" + name + "." + format.fileExtension + "\""
        }
        let full = "\(name).\(format.fileExtension)"
        let plain = String(full.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" && scalar.value != 0x7F ? Character(scalar) : "_"
        })
        var value = "\(kind); filename=\"\(plain)\""
        if plain != full, let encoded = full.addingPercentEncoding(withAllowedCharacters: Self.attributeCharacters) {
            value += "; filename*=UTF-8''\(encoded)"
        }
        return value
    }

    /// RFC 5987's attr-char.
    private static let attributeCharacters = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~")

    /// The name a source URL suggests: its last path segment without
    /// extension, or "image".
    /// The name of an answer whose source came encrypted: its own would
    /// show part of the hidden URL.
    static let hiddenSourceName = "image"

    static func defaultName(for source: URL) -> String {
        let stem = (source.lastPathComponent as NSString).deletingPathExtension
        return stem.isEmpty || stem == "/" ? "image" : stem
    }
}
