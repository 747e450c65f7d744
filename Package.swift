// swift-tools-version: 6.2
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode (the tools default) and imports that
/// stay internal unless a target says `public import`, so no C type leaks into public API.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

/// The capability targets, by name; the daemon composes them all.
let capabilityTargets = [
    "BackgrounderLocation", "BackgrounderAudio", "BackgrounderScheduling", "BackgrounderTransfers",
    "BackgrounderNotifications", "BackgrounderResources", "BackgrounderSharing",
]

/// A capability: what the system does for apps in one domain, in `Sources/Capabilities/FOLDER`.
/// It depends on the contract (`BackgrounderAppCore`) and the system layer, and on no other
/// capability nor the app core's implementation: the import check fails the build if it tries.
func capability(_ name: String, _ folder: String, _ extra: [Target.Dependency] = []) -> Target {
    .target(
        name: name,
        dependencies: [
            "BackgrounderAppCore", "BackgrounderCore", "BackgrounderProtocol", "BackgrounderSystem",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ] + extra,
        path: "Sources/Capabilities/\(folder)",
        swiftSettings: swiftSettings
    )
}

/// A capability's rules on the embedded core (`EmbeddedAppCore`), without processes.
func capabilityTests(_ name: String, _ capability: String) -> Target {
    .testTarget(
        name: name,
        dependencies: [
            .target(name: capability), "BackgrounderAppCore", "BackgrounderCore", "BackgrounderProtocol",
            "BackgrounderSystem", "BackgrounderTestSupport", .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: swiftSettings
    )
}

let package = Package(
    name: "Backgrounder",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "backgrounderd", targets: ["backgrounderd"]),
        .executable(name: "bgctl", targets: ["bgctl"]),
        .executable(name: "bgbundle", targets: ["bgbundle"]),
        .executable(name: "bgbench", targets: ["bgbench"]),
        .library(name: "BackgroundKit", targets: ["BackgroundKit"]),
        .executable(name: "Hello", targets: ["Hello"]),
        .executable(name: "Fibonacci", targets: ["Fibonacci"]),
        .library(name: "LowPowerPolicy", type: .dynamic, targets: ["LowPowerPolicy"]),
        .plugin(name: "BundlePlugin", targets: ["BundlePlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // MARK: C libraries
        .systemLibrary(
            name: "CGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        .systemLibrary(
            name: "CPulse",
            pkgConfig: "libpulse-simple",
            providers: [.apt(["libpulse-dev"])]
        ),

        // sd-bus: the session bus (MPRIS, notifications, UnifiedPush) and logind.
        .systemLibrary(
            name: "CSDBus",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        // Acquire/release atomics on shared memory and memfd with seals, which Swift's
        // Synchronization cannot express for memory another process maps.
        .target(
            name: "CAudioRing",
            path: "Sources/CAudioRing"
        ),

        .target(
            name: "CBackgrounderPolicy",
            path: "Sources/CBackgrounderPolicy"
        ),
        // fork, then only async-signal-safe calls until execve (cgroup join, uid drop,
        // no_new_privs, Landlock), which posix_spawn cannot express.
        .target(
            name: "CSandbox",
            path: "Sources/CSandbox"
        ),
        // Swift Concurrency's jobs on libdispatch's overcommit queue (ADR 0020).
        .target(
            name: "CGlobalExecutor",
            path: "Sources/CGlobalExecutor"
        ),
        // A timerfd on CLOCK_BOOTTIME for the daemon's one timer thread (BootSleep).
        .target(
            name: "CBootTimer",
            path: "Sources/CBootTimer"
        ),
        // epoll for the one thread that watches every app process and its output (ProcessWatch).
        .target(
            name: "CEpoll",
            path: "Sources/CEpoll"
        ),

        // MARK: Pure logic and the wire protocol
        .target(
            name: "BackgrounderCore",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BackgrounderBundles",
            dependencies: ["BackgrounderCore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BackgrounderProtocol",
            dependencies: ["BackgrounderCore", "CAudioRing"],
            swiftSettings: swiftSettings
        ),

        // MARK: The daemon
        // The system layer: processes, sandbox, store, D-Bus transport, conditions, bundles,
        // policies and system calls. It knows no app core and no capability.
        .target(
            name: "BackgrounderSystem",
            dependencies: [
                "BackgrounderCore",
                "BackgrounderBundles",
                "BackgrounderProtocol",
                "CBackgrounderPolicy",
                "CBootTimer",
                "CEpoll",
                "CSandbox",
                "CSDBus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // The app core's contract: what capabilities may ask of the core (`AppCore`), what the
        // core tells them (`AppCapability`), the one actor both run on, and the narrow
        // protocols through which one capability reaches another.
        .target(
            name: "BackgrounderAppCore",
            dependencies: [
                "BackgrounderCore", "BackgrounderProtocol", "BackgrounderSystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The app core: the app table, the life cycle carried out, launching and reaping.
        .target(
            name: "BackgrounderApps",
            dependencies: [
                "BackgrounderAppCore", "BackgrounderCore", "BackgrounderProtocol", "BackgrounderSystem",
                "BackgrounderBundles",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Capabilities: each knows the contract and the system layer, never another
        // capability nor the core's type.
        capability("BackgrounderLocation", "Location", ["CGPS", .product(name: "GRDB", package: "GRDB.swift")]),
        capability("BackgrounderAudio", "Audio", ["CAudioRing", "CPulse"]),
        capability("BackgrounderScheduling", "Scheduling"),
        capability(
            "BackgrounderTransfers", "Transfers",
            [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        capability("BackgrounderNotifications", "Notifications", [.product(name: "NIOCore", package: "swift-nio")]),
        capability("BackgrounderResources", "Resources"),
        capability("BackgrounderSharing", "Sharing"),

        // The daemon: composes the core, the capabilities and the control socket.
        .target(
            name: "BackgrounderDaemon",
            dependencies: [
                "BackgrounderSystem",
                "BackgrounderAppCore",
                "BackgrounderApps",
            ] + capabilityTargets.map { .target(name: $0) } + [
                "BackgrounderCore",
                "BackgrounderBundles",
                "BackgrounderProtocol",
                "CAudioRing",
                "CSandbox",
                "CSDBus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "backgrounderd",
            dependencies: [
                "CGlobalExecutor",
                "BackgrounderSystem",
                "BackgrounderDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Clients
        .executableTarget(
            name: "bgctl",
            dependencies: [
                "BackgrounderProtocol",
                "BackgrounderBundles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "BackgroundKit",
            dependencies: ["BackgrounderProtocol", "CSndFile"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tools behind plugins and benchmarks
        .executableTarget(
            name: "bgbundle",
            dependencies: [
                "BackgrounderBundles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "BundlePlugin",
            capability: .command(
                intent: .custom(verb: "bundle", description: "Assemble products into Name.bundle directories"),
                permissions: [.writeToPackageDirectory(reason: "Writes Bundles/NAME.bundle")]
            ),
            dependencies: ["bgbundle"],
            path: "Plugins/BundlePlugin"
        ),
        .executableTarget(
            name: "bgbench",
            dependencies: [
                "BackgrounderProtocol",
                "BackgrounderSystem",
                "BackgrounderAppCore",
                "BackgrounderApps",
                "BackgrounderDaemon",
                "BackgrounderTestSupport",
            ] + capabilityTargets.map { .target(name: $0) } + [
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Benchmarks/bgbench",
            swiftSettings: swiftSettings
        ),

        // MARK: Samples (each keeps its Info.plist beside its sources)
        .executableTarget(
            name: "Hello",
            dependencies: ["BackgroundKit", "SampleSupport"],
            path: "Samples/Hello",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "Fibonacci",
            dependencies: ["BackgroundKit", "SampleSupport"],
            path: "Samples/Fibonacci",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        // What the samples share: their console, their command-line reading, their way to the
        // app's data directory.
        .target(
            name: "SampleSupport",
            dependencies: ["BackgroundKit"],
            path: "Samples/SampleSupport",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "HikeRecorder",
            dependencies: ["BackgroundKit", "SampleSupport"],
            path: "Samples/HikeRecorder",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "RegionAlerts",
            dependencies: ["BackgroundKit", "SampleSupport"],
            path: "Samples/RegionAlerts",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "BackgroundPlayer",
            dependencies: ["BackgroundKit", "SampleSupport"],
            path: "Samples/BackgroundPlayer",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "FeedReader",
            dependencies: ["BackgroundKit", "SampleSupport"],
            path: "Samples/FeedReader",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "Compactor",
            dependencies: ["BackgroundKit", "SampleSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Samples/Compactor",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "Podcasts",
            dependencies: ["BackgroundKit", "SampleSupport"],
            path: "Samples/Podcasts",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        .target(
            name: "LowPowerPolicy",
            dependencies: ["CBackgrounderPolicy"],
            path: "Samples/LowPowerPolicy",
            exclude: ["Info.plist"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(
            name: "BackgrounderTestSupport",
            dependencies: [
                "BackgrounderCore", "BackgrounderBundles", "BackgrounderProtocol", "BackgrounderSystem",
                "BackgrounderAppCore", "BackgrounderApps", "BackgrounderDaemon",
                "CSndFile",
            ] + capabilityTargets.map { .target(name: $0) } + [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/BackgrounderTestSupport",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "TestApp",
            dependencies: ["BackgroundKit"],
            path: "Tests/Fixtures/TestApp",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BackgrounderCoreTests",
            dependencies: ["BackgrounderCore", "BackgrounderTestSupport"],
            swiftSettings: swiftSettings
        ),
        // One per capability: its rules on an embedded core (EmbeddedAppCore), in milliseconds.
        capabilityTests("LocationCapabilityTests", "BackgrounderLocation"),
        capabilityTests("SchedulingCapabilityTests", "BackgrounderScheduling"),
        capabilityTests("NotificationCapabilityTests", "BackgrounderNotifications"),
        capabilityTests("SharingCapabilityTests", "BackgrounderSharing"),
        capabilityTests("AudioCapabilityTests", "BackgrounderAudio"),
        capabilityTests("TransferCapabilityTests", "BackgrounderTransfers"),
        capabilityTests("ResourceCapabilityTests", "BackgrounderResources"),
        .testTarget(
            name: "BackgrounderBundlesTests",
            dependencies: ["BackgrounderBundles", "BackgrounderTestSupport"],
            swiftSettings: swiftSettings
        ),
        // The app core's own machinery (its one timer) on a manual clock.
        .testTarget(
            name: "AppCoreTests",
            dependencies: ["BackgrounderApps", "BackgrounderAppCore", "BackgrounderCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SamplesTests",
            dependencies: [
                "HikeRecorder", "RegionAlerts", "BackgroundPlayer", "FeedReader", "Compactor", "Podcasts",
                "BackgroundKit",
                "CSndFile", "BackgrounderTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BackgroundKitTests",
            dependencies: ["BackgroundKit", "BackgrounderProtocol"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BackgrounderProtocolTests",
            dependencies: ["BackgrounderProtocol"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "BackgrounderSystem",
                "BackgrounderAppCore",
                "BackgrounderApps",
            ] + capabilityTargets.map { .target(name: $0) } + [
                "BackgrounderDaemon",
                "BackgrounderTestSupport",
                "CSandbox",
                "CGPS",
                "CPulse",
                "backgrounderd",
                "bgctl",
                "Hello",
                "Fibonacci",
                "HikeRecorder",
                "RegionAlerts",
                "BackgroundPlayer",
                "FeedReader",
                "Compactor",
                "Podcasts",
                "TestApp",
                "LowPowerPolicy",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
