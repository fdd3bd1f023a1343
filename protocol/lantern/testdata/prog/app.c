/* A bundle's executable: needs libgreet.so, found through LD_LIBRARY_PATH. */
#include <stdio.h>
const char *greet(void);
int main(void) { printf("%s\n", greet()); return 0; }
