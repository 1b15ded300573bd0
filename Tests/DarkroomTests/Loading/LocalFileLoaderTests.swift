@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// `local:///PATH` sources: read from under the root, and nothing outside it.
@Suite struct LocalFileLoaderTests {
    /// A root folder holding a photo, a text file and a link that leads out.
    private func makeRoot() throws -> URL {
        let root = try Fixtures.temporaryFolder("darkroom-local")
        let photos = root.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try Corpus.data("Aqua.jpg").write(to: photos.appendingPathComponent("Aqua.jpg"))
        try Data("not a photo".utf8).write(to: photos.appendingPathComponent("notes.txt"))
        try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent("out.jpg").path, withDestinationPath: Corpus.photo("Dune.jpg").path)
        return root
    }

    private struct NoNetwork: DataLoading {
        func load(_ request: DataRequest, progress: @escaping @Sendable (Int, Int?) -> Void) async throws(DarkroomError) -> DataResponse {
            throw DarkroomError(.invalidURL, "no network here")
        }
    }

    private func load(_ loader: LocalFileLoader, _ url: String, etag: String? = nil) async throws(DarkroomError) -> DataResponse {
        try await loader.load(DataRequest(url: URL(string: url)!, etag: etag)) { _, _ in }
    }

    @Test func readsFilesUnderTheRootAndRevalidatesThem() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let loader = LocalFileLoader(root: root, io: BlockingExecutor.shared, fallback: NoNetwork())
        guard case .fetched(let source) = try await load(loader, "local:///photos/Aqua.jpg") else {
            Issue.record("expected the file's bytes")
            return
        }
        #expect(source.data == (try Corpus.data("Aqua.jpg")))
        #expect(source.format == .jpeg)
        #expect(try await load(loader, "local:///photos/Aqua.jpg", etag: source.etag) == .notModified)
    }

    @Test(arguments: [
        ("local:///photos/missing.jpg", DarkroomError.Kind.httpStatus),
        ("local:///photos/notes.txt", .notAnImage),
        ("local:///photos/out.jpg", .httpStatus),
        ("local:///photos/../../etc/passwd", .httpStatus),
        ("local:///photos/%2E%2E/%2E%2E/etc/passwd", .httpStatus),
        ("local:///", .invalidURL),
        ("local://host/photos/Aqua.jpg", .invalidURL),
    ])
    func refusesWhatIsMissingNotAnImageOrOutsideTheRoot(url: String, kind: DarkroomError.Kind) async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let loader = LocalFileLoader(root: root, io: BlockingExecutor.shared, fallback: NoNetwork())
        let error = await #expect(throws: DarkroomError.self) { try await load(loader, url) }
        #expect(error?.kind == kind, "\(url): \(error?.description ?? "")")
    }

    /// Through a link to a folder outside the root, a file that exists
    /// there and one that does not get the same answer as a missing file
    /// inside: no answer tells what exists outside.
    @Test func nothingOutsideTheRootCanBeToldFromAMissingFile() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("photos/elsewhere").path,
                                                   withDestinationPath: Corpus.photosFolder.path)
        let loader = LocalFileLoader(root: root, io: BlockingExecutor.shared, fallback: NoNetwork())
        var answers: [String] = []
        for path in ["photos/elsewhere/Dune.jpg", "photos/elsewhere/NoSuchPhoto.jpg", "photos/missing.jpg", "photos/../../etc/passwd", "photos"] {
            do {
                _ = try await load(loader, "local:///\(path)")
                Issue.record("\(path) was read")
            } catch {
                answers.append("\(error.kind) \(error.statusCode ?? 0) " + error.reason.replacingOccurrences(of: "local:///\(path)", with: "URL"))
            }
        }
        #expect(Set(answers).count == 1, "\(answers)")
    }

    @Test func otherSchemesGoToTheLoaderUnderneath() async throws {
        let loader = LocalFileLoader(root: try Fixtures.temporaryFolder(), io: BlockingExecutor.shared, fallback: NoNetwork())
        let error = await #expect(throws: DarkroomError.self) { try await load(loader, "http://example.com/a.jpg") }
        #expect(error?.reason == "no network here")
    }

    @Test func aFileOverTheLimitIsRefusedUnread() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let loader = LocalFileLoader(root: root, maxBytes: 1000, io: BlockingExecutor.shared, fallback: NoNetwork())
        let error = await #expect(throws: DarkroomError.self) { try await load(loader, "local:///photos/Aqua.jpg") }
        #expect(error?.kind == .tooManyBytes)
    }
}
