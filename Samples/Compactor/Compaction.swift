import GRDB

/// Compaction in steps: each step gives back a few free pages (`PRAGMA incremental_vacuum`,
/// the resumable form of VACUUM), and between steps the caller may say stop. A processing
/// task can be expired at any moment (power went, the person picked the device up); stopping
/// between steps leaves a sound, smaller file, and the next task goes on from there.
enum Compaction {
    /// Pages each step gives back: small, so a stop is heard within a few milliseconds.
    static let pagesPerStep = 16

    /// How a compaction ended.
    struct Outcome: Hashable, Sendable {
        /// Steps run.
        var steps: Int
        /// Whether every free page was given back; `false` when it was told to stop first.
        var finished: Bool
    }

    /// Gives free pages back until none is left or `shouldStop` says so.
    /// - Parameters:
    ///   - journal: The database.
    ///   - pagesPerStep: Pages per step.
    ///   - shouldStop: Asked before each step.
    /// - Throws: GRDB's error when a step fails (what earlier steps gave back stays given back).
    @MainActor
    static func run(_ journal: Journal, pagesPerStep: Int = pagesPerStep, shouldStop: () -> Bool) async throws
        -> Outcome
    {
        var steps = 0
        while true {
            let free = try await journal.queue.read { try Int.fetchOne($0, sql: "PRAGMA freelist_count") ?? 0 }
            if free == 0 { return Outcome(steps: steps, finished: true) }
            if shouldStop() { return Outcome(steps: steps, finished: false) }
            try await journal.queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA incremental_vacuum(\(pagesPerStep))")
            }
            steps += 1
        }
    }
}
