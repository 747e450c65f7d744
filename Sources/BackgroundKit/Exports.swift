public import BackgrounderCore
public import BackgrounderProtocol

/// An app's bundle identifier, as the daemon's replies carry it (`Bundle.bundleIdentifier`
/// stays a `String`, as on iOS; compare with `rawValue`).
public typealias BundleID = BackgrounderCore.BundleID
/// Why the app was launched (`UIApplication.LaunchOptionsKey`'s role).
public typealias LaunchReason = BackgrounderCore.LaunchReason
/// The app's life-cycle state (`UIApplication.State`'s role).
public typealias ApplicationState = BackgrounderCore.ApplicationState
/// A position fix (`CLLocation`'s role).
public typealias Location = BackgrounderCore.Location
/// A latitude and longitude (`CLLocationCoordinate2D`'s role).
public typealias Coordinate = BackgrounderCore.Coordinate
/// A circular geographic region (`CLCircularRegion`'s role).
public typealias CircularRegion = BackgrounderCore.CircularRegion
/// Inside, outside or unknown (`CLRegionState`'s role).
public typealias RegionState = BackgrounderCore.RegionState
/// What the person granted (`CLAuthorizationStatus`'s role).
public typealias LocationAuthorization = BackgrounderCore.LocationAuthorization
/// `kCLLocationAccuracy…` constants.
public typealias LocationAccuracy = BackgrounderCore.LocationAccuracy
/// A PCM format (`AVAudioFormat`'s role for the formats Backgrounder carries).
public typealias AudioFormat = BackgrounderCore.AudioFormat
/// s16le or float32le.
public typealias SampleFormat = BackgrounderCore.SampleFormat
/// `AVAudioSession.Category`.
public typealias AudioSessionCategory = BackgrounderCore.AudioSessionCategory
/// `AVAudioSession.CategoryOptions`.
public typealias AudioSessionOptions = BackgrounderCore.AudioSessionOptions
/// `MPRemoteCommand`s, by name.
public typealias RemoteCommand = BackgrounderProtocol.RemoteCommand
/// `MPRemoteCommandHandlerStatus`.
public typealias RemoteCommandHandlerStatus = BackgrounderProtocol.RemoteCommandHandlerStatus
/// `MPMediaLibraryAuthorizationStatus`: not determined, granted or denied.
public typealias MediaLibraryAuthorization = BackgrounderCore.MediaLibraryAuthorization
/// `MPRepeatType`.
public typealias RepeatMode = BackgrounderProtocol.RepeatMode
/// `MPShuffleType`.
public typealias ShuffleMode = BackgrounderProtocol.ShuffleMode
/// `MPNowPlayingInfoCenter`'s dictionary, typed.
public typealias NowPlayingInfo = BackgrounderProtocol.NowPlayingInfo
/// `UIApplication.backgroundFetchIntervalMinimum` / `…Never`, or seconds.
public typealias BackgroundFetchInterval = BackgrounderCore.BackgroundFetchInterval
/// `UIBackgroundFetchResult`.
public typealias BackgroundFetchResult = BackgrounderCore.BackgroundFetchResult
/// A push payload's values (`userInfo`'s role).
public typealias JSONValue = BackgrounderCore.JSONValue
