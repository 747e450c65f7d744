import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show the daemon's version, uptime, socket, bundles, gpsd and PulseAudio connections, power and network, the desktop buses, and what each capability holds.",
        discussion: """
            Each service line says whether it is connected, to what, and if not, why and what \
            the daemon does meanwhile. Under "capabilities", each capability (location, audio, \
            scheduling, transfers, resources, notifications, sharing) says what it holds now and \
            when it next wakes the daemon by itself; `--json` gives the same counted.

            Examples:
              bgctl status
              bgctl --socket /tmp/test.sock status --json
            """
    )

    @OptionGroup var options: CommonOptions

    func run() throws {
        guard case .status(let status) = try options.request(.status) else {
            throw Failure.unexpectedReply
        }
        // Asked apart, of the app core: `STATUS` answers even while the core is hung.
        let capabilities = Result { () throws -> [CapabilityStatus] in
            guard case .capabilities(let list) = try options.request(.capabilities) else {
                throw Failure.unexpectedReply
            }
            return list.capabilities
        }
        if options.json {
            var encoded = try JSONValueEncoder().encode(status)
            if case .object(var fields) = encoded {
                // `null` when the core did not answer: every documented key is present.
                switch capabilities {
                case .success(let rows): fields["capabilities"] = try JSONValueEncoder().encode(rows)
                case .failure: fields["capabilities"] = .null
                }
                encoded = .object(fields)
            }
            try options.printJSON("status", encoded)
            return
        }
        var gps = "\(status.gpsd.state.rawValue)  \(status.gpsd.server)"
        if let detail = status.gpsd.detail { gps += "  (\(detail))" }
        if let fix = status.lastFix, let age = status.lastFixAgeSeconds {
            gps += String(
                format: "  last fix %.1f s ago at %.6f, %.6f",
                age,
                fix.coordinate.latitude,
                fix.coordinate.longitude
            )
        }
        var pulse = "\(status.pulseAudio.state.rawValue)  \(status.pulseAudio.server)"
        if let detail = status.pulseAudio.detail { pulse += "  (\(detail))" }
        print(
            "backgrounderd \(status.version) (protocol \(status.protocol)), pid \(status.pid), up \(formatDuration(status.uptimeSeconds))"
        )
        print(
            table(
                [
                    ["socket", status.socket],
                    ["state", status.stateDirectory],
                    ["bundles", "\(status.bundles.loaded) loaded, \(status.bundles.refused) refused"],
                    ["gpsd", gps],
                    ["PulseAudio", pulse],
                    ["clients", "\(status.clients)"],
                    ["suspension", status.suspension ?? "-"],
                    ["policy", status.policy ?? "-"],
                    ["storage", status.storage.map(describe) ?? "-"],
                    ["sandbox", status.sandbox ?? "-"],
                    ["resources", status.resources ?? "-"],
                    [
                        "power",
                        status.conditions.map { "\($0.externalPower ? "external" : "battery")  (\($0.powerSource))" }
                            ?? "-",
                    ],
                    [
                        "network",
                        status.conditions.map { "\($0.network ? "yes" : "no")  (\($0.networkSource))" } ?? "-",
                    ],
                ] + desktopRows(status.desktop))
        )
        print("\ncapabilities")
        print(table(capabilityRows(capabilities)))
    }

    /// A row per capability: what it holds now, and how far away its next wake is; or why
    /// there are none (a hung core, a daemon older than protocol 1.10).
    private func capabilityRows(_ answer: Result<[CapabilityStatus], any Error>) -> [[String]] {
        let capabilities: [CapabilityStatus]
        switch answer {
        case .success(let rows): capabilities = rows
        case .failure(let error): return [["-", (error as? Failure)?.message ?? "\(error)"]]
        }
        let now = Date().timeIntervalSince1970
        return capabilities.map { capability in
            var line = capability.summary
            if let wake = capability.nextWake {
                line += wake > now ? "; next wake in \(formatDuration(wake - now))" : "; wake due now"
            }
            return [capability.name, line]
        }
    }

    /// The session and system buses and what was found on them.
    private func desktopRows(_ desktop: DesktopStatus?) -> [[String]] {
        guard let desktop else { return [] }
        func describe(_ bus: ServiceConnection) -> String {
            "\(bus.state.rawValue)  \(bus.server)" + (bus.detail.map { "  (\($0))" } ?? "")
        }
        return [
            ["session bus", describe(desktop.sessionBus)],
            ["system bus", describe(desktop.systemBus)],
            ["media keys", "\(desktop.mediaPlayers) MPRIS player(s)"],
            ["notifications", desktop.notifications],
            ["screen lock", desktop.screenLock],
            ["push", desktop.unifiedPush],
        ]
    }

    /// `ok`, or the failure and when; a past failure stays visible after writes work again.
    private func describe(_ storage: StorageStatus) -> String {
        var text = storage.state == .ok ? "ok" : "failing"
        if let error = storage.lastError {
            let when = storage.lastErrorAt.map { Date(timeIntervalSince1970: $0).formatted(.iso8601) } ?? "?"
            text += storage.state == .ok ? "  (last failure \(when): \(error))" : ": \(error) (at \(when))"
        }
        if storage.unstoredEvents > 0 { text += "; \(storage.unstoredEvents) location events not stored" }
        if let reserve = storage.reserveBytes, reserve > 0 { text += "; \(reserve / 1_048_576) MiB in reserve" }
        if let note = storage.reserveNote { text += "; reserve: \(note)" }
        return text
    }

    private func formatDuration(_ seconds: Double) -> String {
        let total = Int(seconds)
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m\(total % 60)s" }
        return "\(total / 3600)h\(total % 3600 / 60)m"
    }
}
