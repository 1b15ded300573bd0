import Foundation
import Testing
import TestSupport

/// The servers' benchmark quotes a ratio only between answers that are the
/// same work: its like-for-like check (bench/answers.py, bench/report.py)
/// refuses a peer whose answer differs in size, chroma subsampling, JPEG
/// quality, format or bytes; its targets table reads the hits target from
/// the warm runs and the mix's target from the mix's rounds; and a run's
/// tables are rendered from its saved raw figures, failures kept
/// (bench/test_fairness.py, run with the project's Pillow).
struct BenchFairnessTests {
    @Test func theLikeForLikeCheckRefusesAMismatchedPeer() throws {
        let process = Process()
        process.executableURL = OTLPReceiver.python
        process.arguments = [Corpus.packageRoot.appendingPathComponent("bench/test_fairness.py").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.environment = TiedProcess.environment()
        try TiedProcess.run(process)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("Ran 7 tests"), "\(text)")
    }
}
