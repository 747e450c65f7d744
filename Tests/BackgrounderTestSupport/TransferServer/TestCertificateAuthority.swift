import Foundation

/// A throwaway certificate authority and a server certificate it signed for `127.0.0.1` and
/// `localhost`, made with the `openssl` command, so HTTPS tests need no real certificate and a
/// client trusts the server only through ``caFile`` (`curl --cacert`, the daemon's
/// `--ca-file` or `SSL_CERT_FILE`).
public struct TestCertificateAuthority: Sendable {
    /// The authority's certificate (PEM): what a client must trust.
    public let caFile: String
    /// The server's certificate (PEM), signed by the authority.
    public let certificateFile: String
    /// The server's private key (PEM).
    public let keyFile: String

    /// Makes a new authority and server certificate (EC P-256, valid two days) in `directory`:
    /// `ca.pem`, `ca-key.pem`, `cert.pem`, `key.pem`.
    /// - Parameter directory: An existing directory, usually a ``TemporaryDirectory``.
    /// - Returns: The paths.
    /// - Throws: ``HarnessError`` with openssl's output when a step fails.
    public static func make(in directory: String) throws -> TestCertificateAuthority {
        let ca = directory + "/ca.pem"
        let caKey = directory + "/ca-key.pem"
        let cert = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let request = directory + "/cert.csr"
        let extensions = directory + "/cert.ext"
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(
            ["req", "-x509"] + curve + [
                "-keyout", caKey, "-out", ca, "-days", "2", "-subj", "/CN=Backgrounder Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try openssl(["req"] + curve + ["-keyout", key, "-out", request, "-subj", "/CN=localhost"])
        // A client checks the name it dialled against subjectAltName only, never the CN.
        try """
        subjectAltName = IP:127.0.0.1, DNS:localhost
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth

        """.write(toFile: extensions, atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", request, "-CA", ca, "-CAkey", caKey, "-CAcreateserial",
            "-out", cert, "-days", "2", "-sha256", "-extfile", extensions,
        ])
        return TestCertificateAuthority(caFile: ca, certificateFile: cert, keyFile: key)
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try Tool.run("/usr/bin/openssl", arguments)
        guard result.status == 0 else {
            throw HarnessError("openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(result.output)")
        }
    }
}
