public import Foundation

/// A self-signed certificate for one host name, made by openssl in a
/// temporary folder: an HTTPS origin's identity in tests, and the trust
/// root that its clients are given.
public struct TestCertificate: Sendable {
    public let host: String
    public let certificate: URL
    public let key: URL

    public static func make(for host: String) async throws -> TestCertificate {
        let folder = try Fixtures.temporaryFolder("darkroom-tls")
        let certificate = folder.appendingPathComponent("cert.pem"), key = folder.appendingPathComponent("key.pem")
        try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                 "-keyout", key.path, "-out", certificate.path, "-days", "2", "-subj", "/CN=\(host)",
                                 "-addext", "subjectAltName=DNS:\(host)"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.environment = TiedProcess.environment()
            try TiedProcess.run(process)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl could not make a certificate for \(host)"])
            }
        }
        return TestCertificate(host: host, certificate: certificate, key: key)
    }
}
