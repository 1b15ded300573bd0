@testable import Darkroom
import Testing

/// A remembered failure is stored by its kind's name and read back by it:
/// every kind there is reads back as itself, and no two share a name.
@Suite struct ErrorKindTests {
    @Test func everyKindReadsBackFromItsName() {
        let kinds = DarkroomError.Kind.all
        #expect(kinds.count >= 24, "\(kinds.count) kinds")
        for kind in kinds { #expect(DarkroomError.Kind(named: kind.description) == kind, "\(kind)") }
        #expect(Set(kinds.map(\.description)).count == kinds.count)
        #expect(kinds.contains(.overloaded) && kinds.contains(.notCached) && kinds.contains(.emptyInput))
        #expect(DarkroomError.Kind(named: "noSuchKind") == nil)
    }
}
