/* A shared library shipped inside a bundle. */
const char *greet(void) { return "hello from libgreet"; }
