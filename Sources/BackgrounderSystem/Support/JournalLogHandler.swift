import Foundation
public import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Log lines for journald: each starts with its syslog priority in angle brackets (`<4>` for
/// a warning), which journald reads off a service's standard error
/// (sd-daemon(3)), so `journalctl --user -u backgrounderd -p warning` shows warnings and worse.
/// Used when standard error is the journal (``isJournal(environment:)``); otherwise the daemon
/// keeps its plain lines.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    /// A handler for `label` at `level`.
    public init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        let tail = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let fieldsText = tail.isEmpty ? "" : " " + tail
        let line = "<\(Self.priority(event.level))>\(label):\(fieldsText) [\(event.source)] \(event.message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// syslog's priority for a level (journald's `PRIORITY=`).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Whether standard error is the journal: systemd sets `$JOURNAL_STREAM` to its device and
    /// inode, which must still be standard error's (a child that redirected it inherits the
    /// variable but not the stream).
    public static func isJournal(environment: [String: String]) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        var info = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &info) == 0
        else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
