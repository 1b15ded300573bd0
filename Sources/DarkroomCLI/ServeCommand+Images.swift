import Darkroom
import DarkroomServer
import ArgumentParser
import Foundation
import HTTPTypes

/// The server's own images and fields: a watermark and a fallback given
/// as bytes or fetched as sources are, the watermark's base opacity, the
/// header fields added to answers and to source requests, and `/info`'s
/// presets (imgproxy's `IMGPROXY_WATERMARK_*`, `_FALLBACK_IMAGE_*`, and
/// Pro's `_CUSTOM_*_HEADERS` and `_INFO_PRESETS`).
extension ServeCommand {
    /// Where Debian's `icc-profiles-free` puts its profiles.
    static let defaultColourProfiles = "/usr/share/color/icc"

    /// The folder's ICC profiles (`.icc`, `.icm`), by file name with and
    /// without the extension, as a URL's `cp` names them: read once, so a
    /// URL never reaches the file system, and never outside the folder.
    static func colourProfiles(in folder: String, required: Bool) throws -> [String: String] {
        let root = URL(fileURLWithPath: folder).resolvingSymlinksInPath()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else {
            if required { throw ValidationError("--color-profiles-dir \(folder): not a folder that can be read") }
            return [:]
        }
        var profiles: [String: String] = [:]
        for name in names.sorted() {
            let file = root.appendingPathComponent(name)
            let ext = file.pathExtension.lowercased()
            guard ext == "icc" || ext == "icm", file.resolvingSymlinksInPath().deletingLastPathComponent().path == root.path,
                  let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int, (1...4_000_000).contains(size)
            else { continue }
            profiles[name] = file.path
            profiles[file.deletingPathExtension().lastPathComponent] = profiles[file.deletingPathExtension().lastPathComponent] ?? file.path
        }
        return profiles
    }

    /// Base64 image bytes, checked to be an image Darkroom reads.
    static func imageData(base64 text: String, name: String) throws -> Data {
        guard let data = Data(base64Encoded: text.filter { !$0.isWhitespace }), !data.isEmpty else {
            throw ValidationError("\(name): not base64-encoded bytes")
        }
        guard case .image = ImageFormat.sniff(data) else { throw ValidationError("\(name): not an image Darkroom reads") }
        return data
    }

    /// An http, https, local or s3 URL, as a source may be.
    static func sourceURL(_ text: String, flag: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https", "local", "s3"].contains(scheme) else {
            throw ValidationError("\(flag) \(text): expected an http, https, local or s3 URL")
        }
        return url
    }

    /// NAME=VALUE fields from the flags, else from the variable (divided by
    /// `\;`, as imgproxy's), each a valid field that is not the answer's or
    /// the connection's own (`reserved`).
    static func headerFields(_ flags: [String], _ variable: String?, flag: String, reserved: Set<String>) throws -> [PassedHeader] {
        let entries = flags.isEmpty ? (variable?.components(separatedBy: "\\;") ?? []) : flags
        var fields: [PassedHeader] = []
        for entry in entries where !entry.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let name = HTTPField.Name(parts[0]), HTTPField.isValidValue(parts[1]),
                  !reserved.contains(name.canonicalName)
            else {
                throw ValidationError("\(flag) \(entry): expected NAME=VALUE, a header field other than \(reserved.sorted().joined(separator: ", "))")
            }
            fields.append(PassedHeader(name: parts[0], value: parts[1]))
        }
        return fields
    }

    /// Fields the server sets itself, which an operator's would contradict.
    static let reservedFields: Set<String> = [
        "content-length", "content-type", "transfer-encoding", "connection", "host", "etag", "last-modified", "date",
        "content-encoding", "keep-alive", "upgrade", "te", "trailer",
    ]
}
