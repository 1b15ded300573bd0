/// Why the server could not be set up.
public struct ServerSetupError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
