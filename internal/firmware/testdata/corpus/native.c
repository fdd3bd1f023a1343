/* main for the corpus on Linux: runs corpus_run, then the pthreads part. */
#include <pthread.h>
#include <stdio.h>

int corpus_run(int rounds);
void corpus_done(int acc);

static volatile int thread_sum;

static void *worker(void *arg)
{
	int id = *(int *)arg;
	int local = id * 10;
	thread_sum += local; /* LINE:worker */
	return 0;
}

int main(void)
{
	pthread_t th[2];
	int ids[2] = {1, 2};
	int acc = corpus_run(3);
	corpus_done(acc);
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], 0, worker, &ids[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], 0);
	printf("acc=%d threads=%d\n", acc, thread_sum);
	return 0;
}
