import BackgroundKit
import Testing

@testable import BackgroundPlayer

@Suite("BackgroundPlayer's command line", .timeLimit(.minutes(5)))
struct PlayerCommandLineTests {
    @Test("words parse into actions; help anywhere is help; an empty PATH is a usage error")
    func parsing() throws {
        #expect(try PlayerCommandLine(["play", "music"]).action == .play("music"))
        #expect(try PlayerCommandLine(["resume"]).action == .play(nil))
        #expect(try PlayerCommandLine(["next"]).action == .next)
        #expect(try PlayerCommandLine(["seek", "12.5"]).action == .seek(12.5))
        for help in [["help"], ["-h"], ["--help"], ["play", "--help"]] {
            #expect(try PlayerCommandLine(help).action == .help, "\(help)")
        }
        #expect(try PlayerCommandLine(["queue"]).action == .queue)
        #expect(try PlayerCommandLine(["volume"]).action == .volume(nil))
        #expect(try PlayerCommandLine(["volume", "0.25"]).action == .volume(0.25))
        #expect(try PlayerCommandLine(["shuffle", "on"]).action == .shuffle(.items))
        #expect(try PlayerCommandLine(["shuffle", "off"]).action == .shuffle(.off))
        #expect(try PlayerCommandLine(["repeat", "all"]).action == .repeatMode(.all))
        for wrong in [
            ["volume", "2"], ["volume", "-0.1"], ["volume", "nan"], ["shuffle", "items"], ["repeat", "yes"],
        ] {
            #expect(throws: PlayerCommandLineError.self, "\(wrong)") { try PlayerCommandLine(wrong) }
        }
        #expect(throws: PlayerCommandLineError.self) { try PlayerCommandLine(["play", ""]) }
        #expect(throws: PlayerCommandLineError.self) { try PlayerCommandLine(["seek", "-1"]) }
        #expect(throws: PlayerCommandLineError.self) { try PlayerCommandLine(["skip"]) }
        #expect(throws: PlayerCommandLineError.self) { try PlayerCommandLine([]) }
    }

    @Test("every status the app may answer reads as a sentence for the command it answers")
    func explanations() {
        #expect(
            PlayerCommand.explanation(of: .noSuchContent, for: .nextTrack)
                == "there is no next track: the last one is playing")
        #expect(
            PlayerCommand.explanation(of: .noActionableNowPlayingItem, for: .previousTrack)
                == "nothing is playing or paused; start with BackgroundPlayer play PATH")
        for status in RemoteCommandHandlerStatus.allCases {
            for command in RemoteCommand.allCases {
                #expect(!PlayerCommand.explanation(of: status, for: command).isEmpty)
            }
        }
    }
}
