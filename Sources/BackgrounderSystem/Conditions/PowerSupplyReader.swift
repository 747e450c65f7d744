/// What the kernel's power-supply class says about external power, and why.
package struct PowerReading: Sendable, Hashable {
    /// Whether the machine runs on external power.
    package var externalPower: Bool
    /// Where that comes from, for `bgctl status` and the log: `AC (Mains) online`,
    /// `BAT0 (Battery) Discharging`, or the default that was applied.
    package var source: String
    /// Files that could not be read; the monitor logs each once.
    package var problems: [String] = []
}

/// Reads external power from the kernel's power-supply class (`/sys/class/power_supply`,
/// or a directory tree of the same shape given with `--power-supply-dir`).
///
/// The rules:
/// - A supply of type `Mains`, `USB`, `USB_*` (USB_C, USB_PD, ...) or `Wireless` whose
///   `online` is `1` is external power.
/// - A `Battery` whose `status` is `Charging`, `Full` or `Not charging` is on external
///   power too: some laptops expose no mains supply, only the battery's status.
/// - Supplies whose `scope` is `Device` (a wireless mouse's battery) say nothing about the
///   machine and are ignored.
/// - A machine with no power supplies at all (a desktop, a VM, a CI runner) counts as on
///   external power: it cannot run out of battery, so power-gated work should not wait
///   for ever. A missing directory is the same case.
/// - A supply whose `type` cannot be read is ignored; one whose `online` or `status` cannot
///   be read is counted as not providing power. Both are reported as problems.
package struct PowerSupplyReader: Sendable {
    /// The power-supply class directory.
    package let directory: String

    /// Supply types that power the machine from outside when online.
    private static func isExternal(_ type: String) -> Bool {
        type == "Mains" || type == "USB" || type.hasPrefix("USB_") || type == "Wireless"
    }

    /// Battery states that mean a charger is connected.
    private static let chargerStates: Set<String> = ["Charging", "Full", "Not charging"]

    /// Reads the supplies now.
    package func read() -> PowerReading {
        let names: [String]
        var problems: [String] = []
        switch KernelFile.entries(directory) {
        case .success(let entries): names = entries
        case .failure(.missing): names = []
        case .failure(let failure):
            return PowerReading(
                externalPower: true,
                source: "\(directory) unreadable: counted as external power",
                problems: ["cannot list \(directory): \(failure)"])
        }
        var seen: [String] = []
        for name in names {
            let supply = directory + "/" + name
            let type: String
            switch KernelFile.read(supply + "/type") {
            case .success(let text): type = text
            case .failure(let failure):
                problems.append("cannot read \(supply)/type: \(failure); supply ignored")
                continue
            }
            if case .success("Device") = KernelFile.read(supply + "/scope") { continue }
            if Self.isExternal(type) {
                switch KernelFile.read(supply + "/online") {
                case .success("1"):
                    return PowerReading(externalPower: true, source: "\(name) (\(type)) online", problems: problems)
                case .success:
                    seen.append("\(name) (\(type)) offline")
                case .failure(let failure):
                    problems.append("cannot read \(supply)/online: \(failure); counted as offline")
                    seen.append("\(name) (\(type)) unreadable")
                }
            } else if type == "Battery" {
                switch KernelFile.read(supply + "/status") {
                case .success(let status) where Self.chargerStates.contains(status):
                    return PowerReading(externalPower: true, source: "\(name) (Battery) \(status)", problems: problems)
                case .success(let status):
                    seen.append("\(name) (Battery) \(status)")
                case .failure(let failure):
                    problems.append("cannot read \(supply)/status: \(failure); counted as discharging")
                    seen.append("\(name) (Battery) unreadable")
                }
            }
        }
        guard !seen.isEmpty else {
            return PowerReading(
                externalPower: true, source: "no power supplies in \(directory): counted as external power",
                problems: problems)
        }
        return PowerReading(externalPower: false, source: seen.joined(separator: ", "), problems: problems)
    }
}
