import BackgroundKit
import Foundation

// Hello: the smallest app bundle. It says hello to the daemon that launched it (or the one
// BACKGROUNDER_SOCKET names) and prints what the daemon says about itself, so a new author
// can see a bundle, a manifest and the socket working end to end.

do {
    let connection = try DaemonConnection(clientName: "Hello")
    let status = try connection.status()
    print("Hello from a bundle: backgrounderd \(status.version) has \(status.bundles.loaded) bundle(s) loaded")
} catch {
    print("Hello from a bundle: \(error)")
    exit(1)
}
