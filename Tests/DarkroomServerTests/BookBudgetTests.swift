import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import TestSupport

/// Finished books are kept within a byte budget on disk, oldest first
/// out, whatever their lifetime says.
@Suite(.offCooperativePool) struct BookBudgetTests {
    static func request() -> PhotobookRequest {
        var request = PhotobookRequest(photos: Corpus.photos.prefix(2).map { .init(name: $0.lastPathComponent, source: .file($0.path)) })
        request.limits = .unhurried
        return request
    }

    static func finished(_ books: BookJobs, pipeline: ImagePipeline) async throws -> BookJob {
        let job = try books.start(Self.request(), client: "a", pipeline: pipeline)
        #expect(await eventually(120) { job.endedAt != nil }, "the book did not end")
        #expect(job.current.state == .done, "\(job.current)")
        return job
    }

    @Test func theOldestFinishedBooksGoPastTheBudget() async throws {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        let pipeline = try ImagePipeline(configuration: configuration)
        let folder = try Fixtures.temporaryFolder("darkroom-book-budget")
        defer { try? FileManager.default.removeItem(at: folder) }
        // One book's size, then a budget of one and a half books.
        let measuring = BookJobs(folder: folder.appendingPathComponent("measure"), lifetime: .seconds(3600))
        let size = try #require(try await Self.finished(measuring, pipeline: pipeline).current.bytes)
        let books = BookJobs(folder: folder.appendingPathComponent("kept"), lifetime: .seconds(3600), maxFinishedBytes: size * 3 / 2)
        var made: [BookJob] = []
        for _ in 0..<3 { made.append(try await Self.finished(books, pipeline: pipeline)) }
        books.sweep()
        #expect(books.job(made[2].id) != nil, "the newest book was removed")
        #expect(books.job(made[0].id) == nil && books.job(made[1].id) == nil, "older books were kept past the budget")
        for job in made.prefix(2) {
            #expect(!FileManager.default.fileExists(atPath: job.current.path ?? ""), "a removed book's PDF is still on disk")
        }
        #expect(books.finishedBytes <= size * 3 / 2)
        await pipeline.shutdown()
    }
}
