import Foundation
import Synchronization
import DarkroomImaging

/// A gate that work can wait on, opened by the test.
public final class Gate: Sendable {
    public init() {}
    private let opened = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    public func wait() async {
        await withCheckedContinuation { c in
            let open = opened.withLock { s in
                if !s.open { s.waiters.append(c) }
                return s.open
            }
            if open { c.resume() }
        }
    }
    public var isOpen: Bool { opened.withLock { $0.open } }
    public func open() {
        let waiters = opened.withLock { s in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// Records the order in which work ran.
public final class Log: Sendable {
    public init() {}
    private let entries = Locked<[String]>([])
    public func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    public var all: [String] { entries.withLock { $0 } }
}

/// Runs a poll on the cooperative pool, whatever executor the test
/// prefers. A test of a suite marked ``Trait/offCooperativePool`` runs on
/// a few threads that the suite's blocking work shares: a poll's next turn
/// queued there behind minutes of a neighbour's decoding, and saw the
/// minutes as the product's (a server that listened at once "did not
/// listen within 120 s"). A poll's turns are short; the pool suits them.
public func polling<T>(_ body: () async throws -> T) async rethrows -> T {
    try await withTaskExecutorPreference(globalConcurrentExecutor, operation: body)
}

/// Polls until `condition` holds, for up to `seconds`: generous, since
/// only a failing test waits it out, and a loaded machine is slow.
public func eventually(_ seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
    await polling {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }
}


/// Polls until the async `condition` holds, for up to `seconds`.
public func eventuallyAsync(_ seconds: Double = 60, _ condition: () async -> Bool) async -> Bool {
    await polling {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition()
    }
}
