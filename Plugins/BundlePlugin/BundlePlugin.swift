import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory bundle [PRODUCT...]`
///
/// Builds each named executable or dynamic-library product (every one whose target keeps an Info.plist
/// beside its sources, when none is named) and hands it to the `bgbundle` tool, which
/// writes `Bundles/NAME.bundle`. `--release` builds in release mode.
@main
struct BundlePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let release = extractor.extractFlag(named: "release") > 0
        let requested = extractor.remainingArguments

        let bundleable = context.package.products.compactMap { product -> (String, URL)? in
            // Apps are executables; policy plug-ins are dynamic libraries.
            let isDynamicLibrary = (product as? LibraryProduct)?.kind == .dynamic
            guard product is ExecutableProduct || isDynamicLibrary, let target = product.targets.first else {
                return nil
            }
            let plist = target.directoryURL.appendingPathComponent("Info.plist")
            return FileManager.default.fileExists(atPath: plist.path) ? (product.name, plist) : nil
        }
        let chosen: [(String, URL)]
        if requested.isEmpty {
            chosen = bundleable
        } else {
            chosen = try requested.map { name in
                guard let match = bundleable.first(where: { $0.0 == name }) else {
                    let known = bundleable.map(\.0).joined(separator: ", ")
                    throw BundlePluginError(
                        "'\(name)' is not an executable product with an Info.plist beside its sources (bundleable: \(known))"
                    )
                }
                return match
            }
        }

        let tool = try context.tool(named: "bgbundle")
        let output = context.package.directoryURL.appendingPathComponent("Bundles")
        var failures: [String] = []
        for (name, plist) in chosen {
            let result = try packageManager.build(
                .product(name),
                parameters: .init(configuration: release ? .release : .debug, echoLogs: false)
            )
            guard result.succeeded,
                let executable = result.builtArtifacts.first(where: {
                    $0.kind == .executable || $0.kind == .dynamicLibrary
                })
            else {
                print(result.logText)
                failures.append(name)
                continue
            }
            let process = Process()
            process.executableURL = tool.url
            process.arguments = [
                "--name", name, "--executable", executable.url.path, "--info-plist", plist.path,
                "--output", output.path,
            ]
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failures.append(name) }
        }
        if !failures.isEmpty {
            throw BundlePluginError("not bundled: \(failures.joined(separator: ", "))")
        }
    }
}

struct BundlePluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
