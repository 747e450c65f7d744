import BackgrounderCore
public import Logging

/// A log handler that escapes control characters in every message and metadata value before
/// another handler writes them (see `String.escapedForTerminal`).
///
/// The daemon's log carries text apps control (task names, region identifiers, now-playing
/// titles, bundle names and identifiers) at many call sites; escaping once here, where every
/// record passes, means no site can forget, and an app can neither send terminal control
/// sequences to whoever reads the log nor forge a log line with a newline.
public struct EscapingLogHandler: LogHandler {
    private var wrapped: any LogHandler

    /// Wraps a handler.
    public init(_ wrapped: any LogHandler) {
        self.wrapped = wrapped
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: event.message.description.escapedForTerminal)
        event.metadata = event.metadata?.mapValues(Self.escape)
        wrapped.log(event: event)
    }

    private static func escape(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text): .string(text.escapedForTerminal)
        case .stringConvertible(let convertible): .string(convertible.description.escapedForTerminal)
        case .array(let values): .array(values.map(escape))
        case .dictionary(let values): .dictionary(values.mapValues(escape))
        }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key].map(Self.escape) }
        set { wrapped[metadataKey: key] = newValue.map(Self.escape) }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue.mapValues(Self.escape) }
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }
}
