from renderer._entry import main

main()
