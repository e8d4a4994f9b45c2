from core.cli import main  # the command line: core/cli/ (one module per subcommand); importable without running

if __name__ == "__main__":
    raise SystemExit(main())
