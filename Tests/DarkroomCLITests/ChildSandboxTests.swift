import Foundation
import Testing
import TestSupport

/// A drawing child (the process that runs poppler, FFmpeg or librsvg on a
/// stranger's file) cannot open a socket: the kernel refuses it, whatever
/// the library asks.
@Suite(.offCooperativePool) struct ChildSandboxTests {
    @Test func aDrawingChildCannotOpenASocket() async throws {
        // The same process without the limits opens one: the check can fail.
        let outside = try await runTool("/usr/bin/python3", ["-c", "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close(); print('opened')"])
        #expect(outside.status == 0 && outside.output.contains("opened"), "\(outside.output)")
        let child = try await DarkroomProcess.run(["child-sandbox-check"])
        #expect(child.status == 0 && child.stdout.contains("socket refused: Permission denied"), "\(child.status): \(child.stdout) \(child.stderr)")
    }
}
