from core.cli import main  # the command line: core/cli/ (one module per subcommand)
raise SystemExit(main())
