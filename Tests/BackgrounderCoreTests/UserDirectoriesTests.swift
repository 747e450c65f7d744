import BackgrounderCore
import Testing

@Suite("The person's folders (xdg-user-dirs)", .timeLimit(.minutes(1)))
struct UserDirectoriesTests {
    @Test(
        "XDG_MUSIC_DIR with $HOME expanded, quoted or not; ~/Music without a file or a line; none when set to the home")
    func music() {
        let translated = """
            # This file is written by xdg-user-dirs-update
            XDG_DESKTOP_DIR="$HOME/Schreibtisch"
              XDG_MUSIC_DIR="$HOME/Musik/"
            """
        #expect(UserDirectories.music(userDirs: translated, home: "/home/anna") == "/home/anna/Musik")
        #expect(UserDirectories.music(userDirs: "XDG_MUSIC_DIR=/srv/music", home: "/home/anna") == "/srv/music")
        #expect(UserDirectories.music(userDirs: nil, home: "/home/anna/") == "/home/anna/Music")
        #expect(UserDirectories.music(userDirs: "XDG_VIDEOS_DIR=\"$HOME/Videos\"", home: "/root") == "/root/Music")
        #expect(UserDirectories.music(userDirs: "XDG_MUSIC_DIR=\"$HOME/\"", home: "/home/anna") == nil)
        #expect(UserDirectories.music(userDirs: "XDG_MUSIC_DIR=\"Music\"", home: "/home/anna") == nil)
    }

    @Test("media-library is a service a person grants or denies, and its prompt allows or denies")
    func mediaLibraryGrant() throws {
        #expect(try AuthorizationGrant(service: "media-library", level: "") == .mediaLibrary(.granted))
        #expect(try AuthorizationGrant(service: "Media-Library", level: "denied") == .mediaLibrary(.denied))
        #expect(throws: AuthorizationGrantProblem.self) {
            try AuthorizationGrant(service: "media-library", level: "always")
        }
        let prompt = ConsentPrompt(
            id: 1, bundle: "a.player", app: "Player", service: .mediaLibrary, asks: "granted", usage: nil, askedAt: 0)
        #expect(prompt.question == "“Player” would like to access your music library")
        #expect(prompt.grant(for: "allow") == .mediaLibrary(.granted))
        #expect(prompt.grant(for: "deny") == .mediaLibrary(.denied))
    }
}
