import Foundation

/// The kernel's id of this boot (`/proc/sys/kernel/random/boot_id`), new after every reboot.
package enum BootID {
    /// The id, or `nil` when the file cannot be read or is empty.
    package static func read(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
    }
}
