import BackgrounderTestSupport
import Foundation
import GRDB
import Testing

@testable import Compactor

/// Compactor's journal and its stepwise compaction on real SQLite files.
@Suite("Compactor's journal and compaction", .timeLimit(.minutes(5)))
@MainActor
struct CompactionTests {
    @Test("opening the app leaves free pages; compaction gives every one back, the file shrinks and stays sound")
    func compacts() async throws {
        let directory = try TemporaryDirectory(prefix: "compact")
        defer { directory.remove() }
        let journal = try Journal(path: directory.appending("journal.sqlite"))
        let churn = try journal.churn(adding: 1000)
        #expect(churn.added == 1000 && churn.removed == 500)
        try journal.churn(adding: 1000)
        let before = try journal.size()
        #expect(before.freePages > 0)
        #expect(before.fileBytes == Int64(before.pages * before.pageSize))

        let outcome = try await Compaction.run(journal) { false }
        let after = try journal.size()
        #expect(outcome.finished)
        #expect(outcome.steps == (before.freePages + Compaction.pagesPerStep - 1) / Compaction.pagesPerStep)
        #expect(after.freePages == 0)
        #expect(after.pages <= before.pages - before.freePages)
        #expect(after.fileBytes == Int64(after.pages * after.pageSize))
        #expect(try journal.count() == Journal.kept)
        #expect(try journal.isIntact())
    }

    @Test("told to stop (the task expired), it stops between steps: smaller, sound, the rest left for next time")
    func stops() async throws {
        let directory = try TemporaryDirectory(prefix: "compact")
        defer { directory.remove() }
        let journal = try Journal(path: directory.appending("journal.sqlite"))
        try journal.churn(adding: 2000)
        let before = try journal.size()
        var asked = 0
        let outcome = try await Compaction.run(journal, pagesPerStep: 8) {
            asked += 1
            return asked > 3
        }
        let after = try journal.size()
        #expect(outcome == Compaction.Outcome(steps: 3, finished: false))
        #expect(after.freePages == before.freePages - 24)
        #expect(after.fileBytes < before.fileBytes)
        #expect(try journal.isIntact())

        // The next task goes on from there.
        #expect(try await Compaction.run(journal) { false }.finished)
        #expect(try journal.size().freePages == 0)
    }

    @Test("nothing to give back: done at once, no step")
    func nothingToDo() async throws {
        let directory = try TemporaryDirectory(prefix: "compact")
        defer { directory.remove() }
        let journal = try Journal(path: directory.appending("journal.sqlite"))
        #expect(try await Compaction.run(journal) { true } == Compaction.Outcome(steps: 0, finished: true))
    }

    @Test("a journal made without incremental vacuum is converted when opened")
    func converts() throws {
        let directory = try TemporaryDirectory(prefix: "compact")
        defer { directory.remove() }
        let path = directory.appending("journal.sqlite")
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: "CREATE TABLE entry (id INTEGER PRIMARY KEY, createdAt REAL NOT NULL, body BLOB NOT NULL)")
            try db.execute(sql: "INSERT INTO entry (createdAt, body) VALUES (0, randomblob(10))")
        }
        #expect(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") } == 0)
        let journal = try Journal(path: path)
        #expect(try journal.queue.read { try Int.fetchOne($0, sql: "PRAGMA auto_vacuum") } == 2)
        #expect(try journal.count() == 1)
    }
}
