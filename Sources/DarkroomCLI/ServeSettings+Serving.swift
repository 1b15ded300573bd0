import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import HTTPTypes

/// `serve`'s settings: where the server listens, what it serves and how URLs are signed. Each reads its flag,
/// else its variable, into the configuration.
extension ServeSettings {
    static let serving: [ServeSetting] = [
        ServeSetting("host", "Address to listen on.", "DARKROOM_HOST") { i, c in
            c.host = i.host ?? i.env("HOST") ?? c.host
        },
        ServeSetting("port", "Port to listen on; 0 for any free one.", "DARKROOM_PORT", range: 0...65_535) { i, c in
            if let port = try i.number(i.port, "port") { c.port = port }
        },
        ServeSetting("list", "The gallery's photo list: a file or an http(s) URL (default: the bundled samples).", "DARKROOM_LIST") { i, c in
            c.list = i.list ?? i.env("LIST")
        },
        ServeSetting("cache-dir", "Disk cache folder.", "DARKROOM_CACHE_DIR") { i, c in
            if let folder = i.cacheDir ?? i.env("CACHE_DIR") { c.cacheFolder = URL(fileURLWithPath: folder) }
        },
        ServeSetting("local-root", "Serve local:///PATH sources from this folder (default: the bundled samples, when no --list is given).", "DARKROOM_LOCAL_ROOT", value: "FOLDER", imgproxy: ["LOCAL_FILESYSTEM_ROOT"]) { i, c in
            if let folder = i.localRoot ?? i.env("LOCAL_ROOT") {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                    throw ValidationError("--local-root \(folder) is not a folder")
                }
                c.localRoot = URL(fileURLWithPath: folder)
            }
        },
        ServeSetting("key", "Hex key for imgproxy URL signatures; with it, unsigned URLs are refused. Repeatable, paired with --salt in order, to accept several while keys rotate.", "DARKROOM_KEY, comma-separated", imgproxy: ["KEY"]) { i, c in
            c.signatures = try i.command.signatures(env: i.env)
        },
        ServeSetting("salt", "Hex salt for imgproxy URL signatures; one per --key.", "DARKROOM_SALT, comma-separated", imgproxy: ["SALT"]),
        ServeSetting("signature-size", "Bytes of the digest a signature carries, 1 to 32 (default 32), as imgproxy's IMGPROXY_SIGNATURE_SIZE.", "DARKROOM_SIGNATURE_SIZE", imgproxy: ["SIGNATURE_SIZE"]),
    ]
}
