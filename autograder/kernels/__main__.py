from autograder.kernels import main

raise SystemExit(main())
