package dev.ratelimit.actuate;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Lets {@code POST .../ratelimits/lists/{list}} take {@code "rules": ["api", "login"]}, as the lists' contract writes
 * it: Actuator reads a write operation's body as a map of strings, which refuses a JSON array, so for these paths only
 * an array of strings is joined with commas before Actuator reads the body (the operation splits it again).
 */
@ControllerAdvice
public class ListsRequestBodyAdvice extends RequestBodyAdviceAdapter {

	private static final String HANDLER = "AbstractWebMvcEndpointHandlerMapping$OperationHandler";

	@Override
	public boolean supports(MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		return parameter.getContainingClass().getName().endsWith(HANDLER) && isListsWrite();
	}

	private static boolean isListsWrite() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet)) {
			return false;
		}
		HttpServletRequest request = servlet.getRequest();
		return "POST".equals(request.getMethod()) && ListsRequestBodies.isListsPath(request.getRequestURI());
	}

	@Override
	public HttpInputMessage beforeBodyRead(HttpInputMessage message, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
		byte[] body = message.getBody().readAllBytes();
		byte[] rewritten = ListsRequestBodies.joinArrays(body);
		return new HttpInputMessage() {

			@Override
			public InputStream getBody() {
				return new ByteArrayInputStream(rewritten);
			}

			@Override
			public HttpHeaders getHeaders() {
				HttpHeaders headers = new HttpHeaders();
				headers.putAll(message.getHeaders());
				headers.setContentLength(rewritten.length);
				return headers;
			}

		};
	}

}
