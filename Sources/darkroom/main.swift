import DarkroomCLI
import Foundation

CommandLineRunner.prepareProcess()
exit(await CommandLineRunner.run(Array(CommandLine.arguments.dropFirst())))
