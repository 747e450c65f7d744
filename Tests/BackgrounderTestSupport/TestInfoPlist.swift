/// The `Info.plist` of a test app bundle, as text.
enum TestInfoPlist {
    /// A manifest with the keys every test app has, and `extra` key/value XML inside the dict.
    static func text(
        identifier: String, name: String, executable: String, modes: [String], extra: String = ""
    ) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>CFBundleIdentifier</key><string>\(identifier)</string>
            <key>CFBundleName</key><string>\(name)</string>
            <key>CFBundleExecutable</key><string>\(executable)</string>
            <key>UIBackgroundModes</key><array>\(modes.map { "<string>\($0)</string>" }.joined())</array>
            <key>NSLocationAlwaysAndWhenInUseUsageDescription</key><string>Tests location events.</string>
            \(extra)
        </dict>
        </plist>
        """
    }
}
