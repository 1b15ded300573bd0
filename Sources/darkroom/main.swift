import DarkroomCLI
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
CommandLineRunner.prepareProcess()
exit(await CommandLineRunner.run(arguments))
