public import Foundation

/// What a session's delegate hears, as `URLSessionDelegate`. Called on the main actor.
@MainActor
public protocol URLSessionDelegate: AnyObject {
    /// Every finished transfer of the background event the app was launched or woken for was
    /// delivered: call the handler `handleEventsForBackgroundURLSession` was given. Only after
    /// such an event, as on iOS.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)
    /// The session was invalidated (``URLSession/invalidateAndCancel()``,
    /// ``URLSession/finishTasksAndInvalidate()``); `error` is `nil` when asked for.
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)
}

/// What a task's delegate hears, as `URLSessionTaskDelegate`.
@MainActor
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    /// The task finished: `error` is `nil` when a response came, whatever its status (see
    /// the task's `response`), else a ``URLError``. For a download it follows
    /// ``URLSessionDownloadDelegate/urlSession(_:downloadTask:didFinishDownloadingTo:)``.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
    /// An upload's progress.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64)
}

/// What a download task's delegate hears, as `URLSessionDownloadDelegate`.
@MainActor
public protocol URLSessionDownloadDelegate: URLSessionTaskDelegate {
    /// The body is in the file at `location`: move it before returning, since the system
    /// deletes it after (the app then acknowledges the transfer).
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL)
    /// Progress: `bytesWritten` since the last call; `totalBytesExpectedToWrite` is -1 when
    /// the server did not say.
    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)
}

extension URLSessionDelegate {
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {}
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}
}

extension URLSessionTaskDelegate {
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {}
}

extension URLSessionDownloadDelegate {
    public func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {}
}
