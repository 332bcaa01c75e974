from emulator.server.cli import main

main()
