"""The app's screens: runs, matrix, queue, question, help and the small dialogs."""
