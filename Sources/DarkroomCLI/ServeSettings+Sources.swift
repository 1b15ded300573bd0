import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import HTTPTypes

/// `serve`'s settings: which sources may be fetched. Each reads its flag,
/// else its variable, into the configuration.
extension ServeSettings {
    static let sources: [ServeSetting] = [
        ServeSetting("allow-source", "A source URL prefix that may be fetched, or a pattern with * as imgproxy's ALLOWED_SOURCES (https://*.cdn.example/); repeatable.", "DARKROOM_ALLOW_SOURCE", imgproxy: ["ALLOWED_SOURCES"]) { i, c in
            c.allowedSources = i.allowSource.isEmpty ? (i.env("ALLOW_SOURCE")?.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } ?? []) : i.allowSource
        },
        ServeSetting("allow-private-networks", "Also fetch from loopback and private addresses.", "DARKROOM_ALLOW_PRIVATE_NETWORKS") { i, c in
            c.allowPrivateNetworks = i.allowPrivateNetworks || i.envFlag("ALLOW_PRIVATE_NETWORKS")
        },
        ServeSetting("source-ca", "A PEM file of certificate authorities trusted for HTTPS sources, besides the system's; repeatable.", "DARKROOM_SOURCE_CA", value: "FILE") { i, c in
            c.sourceCertificateAuthorities = i.sourceCA.isEmpty ? (i.env("SOURCE_CA")?.split(separator: ",").map(String.init) ?? []) : i.sourceCA
            for file in c.sourceCertificateAuthorities where !FileManager.default.isReadableFile(atPath: file) {
                throw ValidationError("--source-ca \(file) cannot be read")
            }
        },
    ]
}
