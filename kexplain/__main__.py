from kexplain.cli.app import main

main()
