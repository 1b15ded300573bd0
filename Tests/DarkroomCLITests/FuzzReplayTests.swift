import Foundation
import Testing
import TestSupport

/// Every seed and every input that once crashed a fuzz target, replayed
/// through its target (the ordinary build of `darkroom-fuzz`).
struct FuzzReplayTests {
    static let binary = DarkroomProcess.product("darkroom-fuzz")
    static let seeds = Corpus.packageRoot.appendingPathComponent("Tests/Fuzz")

    @Test(arguments: ["url", "accept", "list", "book", "image", "s3", "thumbnail", "heif", "frames"])
    func everySeedAndFoundCrashEndsCleanly(target: String) async throws {
        let folder = Self.seeds.appendingPathComponent(target)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0).path }
        #expect(!files.isEmpty, "no seeds for \(target)")
        let (status, output) = try await runTool(Self.binary.path, files, environment: ["DARKROOM_FUZZ_TARGET": target])
        #expect(status == 0, "\(output)")
        #expect(output.contains("\(target): \(files.count) inputs, no crash"))
    }
}
