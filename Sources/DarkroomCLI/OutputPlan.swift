import ArgumentParser
import Darkroom
import Foundation

/// Where each input's output goes.
enum OutputPlan {
    /// An output path, whose extension follows the format once it is known.
    struct Destination: Sendable {
        /// A path with no extension when the format decides it; a full path
        /// when the user named the file.
        var base: String
        var userNamedFile: Bool

        func path(for format: ImageFormat) -> String {
            userNamedFile ? base : base + "." + format.fileExtension
        }
    }

    static func destinations(for inputs: [String], output: String, format: ImageFormat?) throws -> [Destination] {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
        let isFolder = inputs.count > 1 || output.hasSuffix("/") || (exists && isDirectory.boolValue)
        if !isFolder {
            return [Destination(base: output, userNamedFile: true)]
        }
        if exists && !isDirectory.boolValue {
            throw ValidationError("-o \(output): with several inputs the output must be a folder, and this is a file")
        }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("-o \(output): cannot create the folder (\((error as NSError).localizedDescription))")
        }
        let folder = URL(fileURLWithPath: output)
        var used = Set<String>()
        return inputs.map { input in
            let stem = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
            let name = SafeFileName.unique(SafeFileName.make(stem), in: &used)
            return Destination(base: folder.appendingPathComponent(name).path, userNamedFile: false)
        }
    }
}
